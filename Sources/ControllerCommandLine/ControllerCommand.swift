import ArgumentParser
import ControllerDaemon
import Dispatch
import ControllerFSM
import ControllerHost

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
            discussion: ExitStatus.help(App.self),
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
        CommandLineEntry.start(Self.self, program: App.daemonName, daemonCommand: ControllerCommandList<App>.daemonCommandName)
    }
}

/// What every application's root command does around ArgumentParser.
package enum CommandLineEntry {
    /// Takes the daemon's signals, then runs the command on Swift's executors and parks the main
    /// thread in Dispatch's main loop. The order matters: `dispatchMain()` (and the asynchronous
    /// `main` top-level `await` compiles to) waits in `sigsuspend` with every signal unblocked,
    /// so a stop signal that came while the daemon started — pending behind a supervisor's
    /// blocked mask, say — would be delivered there by its default action if the trap were
    /// installed later, from the command's task on another thread.
    package static func start<Root: AsyncParsableCommand>(_ root: Root.Type, program: String, daemonCommand: String) -> Never {
        Terminal.program = program
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The daemon takes its stop and reload signals from here on: one that came while it
        // started (before a line is requested, or just after READY=1) would otherwise end it
        // by the signal's default action, without the outputs' stop drive.
        if arguments.first == daemonCommand {
            _ = SignalTrap.daemon
            // Before the first task: the daemon's tasks then never start libdispatch's pool.
            if !DaemonExecutor.install() {
                Terminal.log("warning: Swift's global executor is already taken in this process: the daemon's tasks run on libdispatch's pool, which wakes the process once a second while idle")
            }
        }
        Task {
            await main(root, program: program, arguments: arguments)
            Syscalls.exit(0)
        }
        dispatchMain()
    }

    private static func main<Root: AsyncParsableCommand>(_ root: Root.Type, program: String, arguments: [String]) async {
        let commands = Root.configuration.subcommands.map { $0._commandName } + ["help"]
        if let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) {
            let suggestion = Suggestion.didYouMean(first, in: commands).map { "; \($0)" } ?? ""
            Terminal.error("unknown command \"\(first.shown)\"\(suggestion). Commands: \(commands.dropLast().joined(separator: ", ")); see `\(program) --help`")
            Syscalls.exit(ExitStatus.usage.rawValue)
        }
        await Root.main(arguments)
        let code = Syscalls.flushStandardOutput()
        if code != 0 {
            Terminal.error("cannot write standard output: \(SystemErrno.describe(code))")
            Syscalls.exit(ExitStatus.outputFailed.rawValue)
        }
    }
}

/// The exit statuses every command shares, as ArgumentParser throws them (their numbers: ``ExitCodes``).
package enum ExitStatus {
    package static let expectationFailed = ExitCode(ExitCodes.expectationFailed)
    package static let refused = ExitCode(ExitCodes.refused)
    package static let badInput = ExitCode(ExitCodes.badInput)
    package static let gpioError = ExitCode(ExitCodes.gpioError)
    package static let storeError = ExitCode(ExitCodes.storeError)
    /// A C library the command opens at run time is not installed (``RuntimeLibraries``).
    package static let libraryMissing = ExitCode(ExitCodes.libraryMissing)
    package static let usage = ExitCode(ExitCodes.usage)
    package static let outputFailed = ExitCode(ExitCodes.outputFailed)

    /// The statuses, for `--help` (the root command's and the subcommands').
    package static func help<App: ControllerApplication>(_: App.Type) -> String {
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
