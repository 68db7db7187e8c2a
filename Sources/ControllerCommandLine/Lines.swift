import ControllerRuntime
import ArgumentParser
import ControllerFSM
import ControllerFSMGpiod
import ControllerHost

package struct Lines<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "lines",
            abstract: "List the GPIO chips and their lines (like gpiodetect and gpioinfo), to write a board file.",
            discussion: """
                Each line shows its offset, its name, who holds it and its direction. A board file \
                names its chip by label (the text in brackets) and each line by name or offset.

                Exit status: 0 listed, 3 no chip or a GPIO error, 5 libgpiod is not installed \
                (the message names the package), 64 a bad option.
                """)
    }

    @Option(name: .long, help: ArgumentHelp("Only this chip: a label, a name (gpiochip0) or a path.", valueName: "chip"))
    var chip: String?

    package init() {}

    package func run() throws {
        let chips: [GpiodChip.Discovered]
        do {
            chips = try GpiodChip.available()
        } catch {
            Terminal.error("\(error)")
            throw ControllerExit.of(error, otherwise: ControllerExit.gpioError)
        }
        // Which libgpiod answered: one binary runs on either generation.
        if let library = try? GpiodLibrary.current() { print(library) }
        if chips.isEmpty {
            Terminal.error("this machine has no GPIO chips (nothing matches \(GpiodChip.deviceDirectory)/gpiochip*)")
            throw ControllerExit.gpioError
        }
        let selector = chip.map(GPIOChipSelector.init(parsing:))
        var shown = 0
        for found in chips {
            guard let info = found.info else {
                if selector == nil || selector == .path(found.path) {
                    print("\(found.path): \(found.error.map { "\($0)" } ?? "cannot be opened")")
                }
                continue
            }
            if let selector, !selector.matches(info) { continue }
            shown += 1
            print(info)
            do {
                let opened = try GpiodChip(path: info.path)
                for line in try opened.allLineInfo() {
                    let name = line.name.isEmpty ? "unnamed" : "\"\(line.name)\""
                    let holder = line.consumer.map { "\"\($0)\"" } ?? "unused"
                    var flags = [line.direction.rawValue]
                    if line.activeLow { flags.append("active-low") }
                    if let bias = line.bias, bias != .asIs { flags.append(bias.rawValue) }
                    print("\tline \(String(line.offset.rawValue).leftPadded(3)): \(name.padding(18)) \(holder.padding(14)) \(flags.joined(separator: " "))")
                }
            } catch {
                print("\t\(error)")
            }
        }
        if let selector, shown == 0 {
            Terminal.error("\(GPIOError.chipNotFound(lookedFor: selector.description, available: chips.compactMap(\.info), program: App.daemonName))")
            throw ControllerExit.gpioError
        }
    }
}
