import ArgumentParser
import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerRuntime

/// An application's whole command line — `run`, `simulate`, `check`, `graph`, `lines`, `soak`,
/// `stats`, `ctl` — read from its declaration. An application's `main.swift` is one line:
///
/// ```swift
/// ControllerCommand<ParkingBarrier>.runCommandLine()
/// ```
public struct ControllerCommand<App: ControllerApplication>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: App.daemonName,
            abstract: App.summary,
            discussion: ControllerExit.help(App.self),
            version: RuntimeVersion.text,
            subcommands: ControllerCommandList<App>.all,
            defaultSubcommand: Simulate<App>.self)
    }

    public init() {}

    /// Parses the process's arguments and runs the command they name: ArgumentParser's entry,
    /// with two checks around it — a misspelt command is named as such (with the default
    /// subcommand it would otherwise be read as an argument of `simulate`), and output that
    /// could not be written fails the run instead of vanishing. (Named apart from
    /// ArgumentParser's own `main()`, which top-level code would pick without these checks.)
    ///
    /// It is synchronous on purpose: the daemon's signals are taken on the main thread before
    /// any asynchronous code runs (see `CommandLineEntry.start`).
    public static func runCommandLine() -> Never {
        runCommandLine(arguments: Array(CommandLine.arguments.dropFirst()))
    }

    /// ``runCommandLine()`` on `arguments` (the program's name not included): for a program that
    /// takes some of its arguments itself first (`chartd --chart FILE`).
    public static func runCommandLine(arguments: [String]) -> Never {
        CommandLineEntry.start(Self.self, program: App.daemonName, daemonCommand: ControllerCommandList<App>.daemonCommandName, arguments: arguments)
    }
}

/// What every application's root command does around ArgumentParser.
package enum CommandLineEntry {
    /// Takes the daemon's signals when the command is the daemon's (``DaemonProcess`` says why
    /// before any task), then runs the command on Swift's executors.
    package static func start<Root: AsyncParsableCommand>(_ root: Root.Type, program: String, daemonCommand: String, arguments: [String]) -> Never {
        Terminal.program = program
        if arguments.first == daemonCommand {
            DaemonProcess.takeSignalsAndExecutor()
        }
        DaemonProcess.start {
            await main(root, program: program, arguments: arguments)
        }
    }

    /// ArgumentParser's `main`, with the runtime's ``ControllerExit`` (said on standard error
    /// already) as the exit status it names.
    private static func main<Root: AsyncParsableCommand>(_ root: Root.Type, program: String, arguments: [String]) async -> Int32 {
        let commands = Root.configuration.subcommands.map { $0._commandName } + ["help"]
        if let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) {
            let suggestion = Suggestion.didYouMean(first, in: commands).map { "; \($0)" } ?? ""
            Terminal.error("unknown command \"\(first.shown)\"\(suggestion). Commands: \(commands.dropLast().joined(separator: ", ")); see `\(program) --help`")
            return ControllerExit.usage.rawValue
        }
        do {
            var command = try Root.parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let status as ControllerExit {
            return status.rawValue
        } catch {
            Root.exit(withError: error)
        }
        return DaemonProcess.flushedStandardOutput()
    }
}

extension ControllerExit {
    /// The statuses, for `--help` (the root command's and the subcommands').
    static func help<App: ControllerApplication>(_: App.Type) -> String {
        """
        Exit status:
          0   every `expect` held (simulate), or the files are valid (check)
          1   an `expect` failed, an invariant broke or an output was not driven as the
              machine asked; each is reported (simulate), or
              \(App.daemonName) refused the request or could not be reached (ctl)
          2   a malformed scenario or board file, refused before anything ran
          3   a GPIO error stopped the run (the counters so far are reported)
          4   the count database cannot be used (missing, damaged, permissions)
          5   a library the command needs is not installed (libgpiod for a real chip,
              libsqlite3 for --database, libmosquitto for --mqtt): the message names the
              package; nothing was touched
          64  a bad command line: an unknown command or option, or an invalid value
          74  standard output could not be written (a full disk, a closed pipe)
        """
    }
}
