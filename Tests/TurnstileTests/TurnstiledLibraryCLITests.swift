import Testing

/// libgpiod is opened at run time, and only by what drives a real chip: without it (here, a
/// forced generation the loader refuses), `run` on a libgpiod board and `lines` exit 3 with the
/// reason, while `simulate` and `run` on a simulated board never look for it.
@Suite("turnstiled without libgpiod (CLI)")
struct TurnstiledLibraryCLITests {
    static let refused = ["CONTROLLERFSM_LIBGPIOD": "7"]
    static let message = #"libgpiod could not be loaded: CONTROLLERFSM_LIBGPIOD is "7". Set it to 1 (libgpiod 1.6) or 2 (libgpiod 2.x)"#

    @Test("run on a real chip and lines exit 3 and say why", arguments: [
        ["run", "--board", "boards/raspberry-pi-4.toml", "--no-http"], ["lines"],
    ])
    func realChipCommands(_ arguments: [String]) throws {
        let resolved = arguments.map { $0.hasPrefix("boards/") ? repositoryPath($0) : $0 }
        let run = try Turnstiled.run(resolved, environment: Self.refused)
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains(Self.message), "\(run)")
        #expect(!run.stderr.contains("Fatal error"), "\(run)")
    }

    @Test("simulate and a simulated board need no libgpiod")
    func simulatedCommands() throws {
        let simulate = try Turnstiled.run(["simulate"], environment: Self.refused)
        #expect(simulate.status == 0 && !simulate.stderr.contains("libgpiod"), "\(simulate)")
        let check = try Turnstiled.run(["check", "--board", repositoryPath("boards/raspberry-pi-4.toml")], environment: Self.refused)
        #expect(check.status == 0, "\(check)")
    }
}
