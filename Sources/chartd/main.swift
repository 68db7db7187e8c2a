import ArgumentParser
import ControllerChart
import ControllerCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The chart this process runs: loaded once from `--chart`, before the command line reads the
/// declaration made of it.
enum LoadedChartSpace: ChartSpace {
    static let slot = ChartSlot<LoadedChartSpace>()
}

/// Every controller's command line, and `explore` after `check`.
struct ChartCommand: AsyncParsableCommand {
    typealias App = ChartController<LoadedChartSpace>

    static var configuration: CommandConfiguration {
        var configuration = ControllerCommand<App>.configuration
        let check = configuration.subcommands.firstIndex { $0._commandName == "check" } ?? configuration.subcommands.count - 1
        configuration.subcommands.insert(Explore<App>.self, at: check + 1)
        return configuration
    }
}

/// `EX_USAGE`, as the runtime's own usage errors.
let usageStatus: Int32 = 64
/// The status of a chart or binding that cannot be loaded: bad input, as a board file that
/// cannot be read.
let loadStatus: Int32 = 2

/// The commands before which the loader's notes are said.
let notedCommands: Set<String> = ["simulate", "run", "check"]

/// One line on standard error, "chartd: " first.
func say(_ message: String) {
    var line = "chartd: \(message)\n"
    line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}

func fail(_ message: String, status: Int32) -> Never {
    say(message)
    exit(status)
}

switch ChartArguments.split(Array(CommandLine.arguments.dropFirst())) {
case .failure(let error):
    fail(error.description, status: usageStatus)
case .success(let (file, rest)):
    guard let file else {
        if rest.contains("--help") || rest.contains("-h") || rest.first == "help" {
            print("chartd: an SCXML chart as a controller.\nUsage: \(ChartArguments.usage)")
            exit(0)
        }
        fail("which chart? \(ChartArguments.usage)", status: usageStatus)
    }
    do {
        let chart = try ChartLoader.load(bindingFile: file, into: LoadedChartSpace.self)
        // What the loader passed over, said where a person reads the chart's run: not before
        // every `ctl` or `--help`.
        if let command = rest.first(where: { !$0.hasPrefix("-") }), notedCommands.contains(command) {
            for note in chart.notes { say("note: \(note)") }
        }
    } catch {
        fail(error.description, status: loadStatus)
    }
    CommandLineEntry.start(ChartCommand.self, program: ChartCommand.App.daemonName, daemonCommand: "run", arguments: rest)
}
