import ArgumentParser
import ControllerDaemon
import ControllerFSM
import ControllerHost
import Turnstile

@main
struct Turnstiled: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turnstiled",
        abstract: "The coin-operated turnstile controller, on real GPIO or simulated.",
        discussion: exitStatusHelp,
        version: "0.1.0",
        subcommands: [Simulate.self, Run.self, Lines.self, Check.self, Graph.self, Soak.self, Stats.self, Ctl.self],
        defaultSubcommand: Simulate.self)

    /// ArgumentParser's entry, with two checks around it: a misspelt command is named as such
    /// (with the default subcommand it would otherwise be read as an argument of `simulate`),
    /// and output that could not be written fails the run instead of vanishing.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The daemon takes its stop and reload signals from here on: one that came while it
        // started (before a line is requested, or just after READY=1) would otherwise end it
        // by the signal's default action, without the fail-mode drive.
        if arguments.first == Run._commandName { _ = SignalTrap.daemon }
        let commands = configuration.subcommands.map { $0._commandName } + ["help"]
        if let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) {
            let suggestion = Suggestion.didYouMean(first, in: commands).map { "; \($0)" } ?? ""
            Terminal.error("unknown command \"\(first)\"\(suggestion). Commands: \(commands.dropLast().joined(separator: ", ")); see `turnstiled --help`")
            Syscalls.exit(ExitStatus.usage.rawValue)
        }
        await main(arguments)
        let code = Syscalls.flushStandardOutput()
        if code != 0 {
            Terminal.error("cannot write standard output: \(SystemErrno.describe(code))")
            Syscalls.exit(ExitStatus.outputFailed.rawValue)
        }
    }
}

/// The exit statuses, for `--help` (the root command's and the subcommands').
let exitStatusHelp = """
    Exit status:
      0   every `expect` held (simulate), or the files are valid (check)
      1   an `expect` failed; each failure is reported on standard error (simulate), or
          turnstiled refused the request or could not be reached (ctl)
      2   a malformed scenario or board file, refused before anything ran
      3   a GPIO error stopped the run (the counters so far are reported)
      4   the count database cannot be used (missing, damaged, permissions)
      64  a bad command line: an unknown command or option, or an invalid value
      74  standard output could not be written (a full disk, a closed pipe)
    """

enum ExitStatus {
    static let expectationFailed = ExitCode(1)
    static let refused = ExitCode(1)
    static let badInput = ExitCode(2)
    static let gpioError = ExitCode(3)
    static let storeError = ExitCode(4)
    static let usage = ExitCode(64)
    static let outputFailed = ExitCode(74)
}
