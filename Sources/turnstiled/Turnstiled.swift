import ArgumentParser

@main
struct Turnstiled: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turnstiled",
        abstract: "The coin-operated turnstile controller, on real GPIO or simulated.",
        discussion: exitStatusHelp,
        version: "0.1.0",
        subcommands: [Simulate.self, Run.self, Lines.self, Check.self, Graph.self, Soak.self],
        defaultSubcommand: Simulate.self)
}

/// The exit statuses, for `--help` (the root command's and the subcommands').
let exitStatusHelp = """
    Exit status:
      0   every `expect` held (simulate), or the files are valid (check)
      1   an `expect` failed; each failure is reported on standard error
      2   a malformed scenario or board file, refused before anything ran
      3   a GPIO error stopped the run (the counters so far are reported)
      64  a bad command line: an unknown option or an invalid value
    """

enum ExitStatus {
    static let expectationFailed = ExitCode(1)
    static let badInput = ExitCode(2)
    static let gpioError = ExitCode(3)
}
