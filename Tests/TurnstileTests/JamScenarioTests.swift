import ControllerTestSupport
import TurnstileTestSupport
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// A push line held active past the jam timeout is a mechanism fault.
@Suite("Scenario<TurnstileApplication>: a jammed arm")
struct JamScenarioTests {
    struct Hold: Sendable, CustomTestStringConvertible {
        var jamTimeout: String
        var hold: String
        var jams: Bool
        var testDescription: String { "push hold \(hold) with jam_timeout \(jamTimeout)" }
    }

    static let holds: [Hold] = [
        Hold(jamTimeout: "30s", hold: "31", jams: true),
        Hold(jamTimeout: "30s", hold: "29.9", jams: false),
        Hold(jamTimeout: "2s", hold: "2.1", jams: true),
        Hold(jamTimeout: "2s", hold: "1.95", jams: false),
    ]

    @Test("a hold longer than the jam timeout faults one jam timeout after the press is taken", arguments: holds)
    func jam(hold: Hold) throws {
        let board = try simBoard(replacing: ["jam_timeout = \"30s\"": "jam_timeout = \"\(hold.jamTimeout)\""])
        let run = try playExpectingSuccess("1 push hold \(hold.hold)", board: board)
        let press = try #require(run.taken(.push).first)
        #expect(press.from == .locked && acceptance(ofPulseAt: seconds(1)).contains(press.at))
        let faults = run.taken(.fault)
        if hold.jams {
            #expect(faults.map(\.at) == [press.at + board.settings.jamTimeout])
            #expect(run.summary?.state == .broken)
            #expect(run.counters.faults == 1)
            #expect(run.changes(of: .alarm).first?.time == press.at,
                    "the forced push sounds the alarm; the fault keeps it on")
        } else {
            #expect(faults.isEmpty, "a hold shorter than the jam timeout is not a jam")
            #expect(run.summary?.state == .locked && run.counters.faults == 0)
        }
        #expect(run.counters.forcedPushes == 1, "the press itself is one forced push")
    }

    @Test("a jam whose fault was ignored (emergency, repair) breaks the turnstile when it returns to service", arguments: [
        "5 emergency on\n35 emergency off\n35.5 expect state broken",
        "28 repair\n34 expect state broken",
    ])
    func jamOutlastsAnInterruption(interruption: String) throws {
        let run = try playExpectingSuccess("0 push hold 40\n" + interruption + "\n45 expect counter faults 1")
        let faults = run.records.filter { $0.event == .fault }
        #expect(faults.count == 2, "ignored at the jam timeout, taken on the return to locked: \(faults)")
        #expect(faults.last?.from == .locked && faults.last?.to == .broken)
        #expect(run.summary?.state == .broken)
    }

    @Test("a jam after a paid passage: the passage counts, then the turnstile breaks")
    func jamWhileUnlocked() throws {
        let run = try playExpectingSuccess("""
            0     coin
            1     push hold 31
            1.5   expect counter passages 1
            1.5   expect state locked
            31.5  expect state broken
            31.5  expect counter faults 1
            31.5  expect output alarm 1
            """)
        #expect(run.summary?.state == .broken)
        #expect(run.counters.coins == run.counters.passages)
    }

    @Test("releasing the arm cancels the jam: two holds just under the timeout never fault")
    func releaseCancelsJam() throws {
        let run = try playExpectingSuccess("""
            0     push hold 20
            21    push hold 20
            45    expect counter faults 0
            45    expect state locked
            """)
        #expect(run.taken(.fault).isEmpty)
    }
}
