import ControllerFSMSim
import Foundation
import Testing

/// `barrierd run --record` and `barrierd simulate --script` of the recording, as the turnstile's
/// record-and-replay test does it: the run plays a scenario on the simulated board in real
/// time, its simulated arm moved by the plant; the replay, in virtual time, must end in the
/// same state with the same counters. The limit switches are the plant's in both, so the
/// recording holds none of them.
@Suite("Parking barrier: record and replay (barrierd)")
struct BarrierRecordReplayTests {
    /// boards/sim.toml with a quick arm and short timings, so a run of every state takes seconds.
    static func quickBoard() throws -> String {
        var text = try String(contentsOf: ParkingBarrierDeclarationTests.boards.appendingPathComponent("sim.toml"), encoding: .utf8)
        for (old, new) in [
            (#"motor_timeout = "6s""#, #"motor_timeout = "1.5s""#), (#"close_delay = "1s""#, #"close_delay = "0.3s""#),
            (#"hold_open = "20s""#, #"hold_open = "1.5s""#), (#"travel_time = "3s""#, #"travel_time = "0.5s""#),
        ] {
            try #require(text.contains(old), "boards/sim.toml no longer has \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    /// Every state and every counter, each input well clear (100 ms and more) of the arm's
    /// arrivals, so the replay, which takes each input within the bounce window of the run's
    /// time, meets the arm where the run did.
    static let scenario = """
        0.2 pulse request
        1.0 set loop on
        1.4 set loop off
        1.9 set photocell on
        2.0 set photocell off
        2.8 set loop on
        3.1 set loop off
        4.2 event fault
        4.4 pulse request
        4.6 set emergency on
        5.4 set emergency off
        5.6 pulse service
        6.0 pulse request
        8.5 end

        """

    static func recordAndReplay(_ script: String) throws -> (live: Barrierd.Summary, replay: Barrierd.Summary, recording: String) {
        let directory = try TemporaryDirectory()
        let board = try directory.file("board.toml", quickBoard())
        let scriptPath = try directory.file("script.txt", script)
        let recording = directory.url.appendingPathComponent("recorded.txt").path
        let live = try Barrierd.run(["run", "--board", board, "--script", scriptPath, "--stop-at-end", "--record", recording, "--json", "--no-http"])
        try #require(live.status == 0, "\(live)")
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        let replay = try Barrierd.run(["simulate", "--board", board, "--script", recording, "--json"])
        try #require(replay.status == 0, "\(replay)\n--- recording:\n\(recorded)")
        let liveSummary = try #require(Barrierd.summary(live.stdout), "\(live)")
        let replaySummary = try #require(Barrierd.summary(replay.stdout), "\(replay)")
        return (liveSummary, replaySummary, recorded)
    }

    @Test("a recorded run replays in simulate to the same state and counters; the limit switches are left to the plant")
    func recordAndReplay() throws {
        let (live, replay, recorded) = try Self.recordAndReplay(Self.scenario)
        #expect(live == replay, "--- run: \(live)\n--- simulate: \(replay)\n--- recording:\n\(recorded)")
        // The run went where the scenario meant: a passage, a reversal, an expiry, a refusal, a repair.
        for counter in ["requests", "refusedRequests", "passages", "expiredOpenings", "reversals", "faults", "repairs"] {
            #expect(live.counters[counter, default: 0] > 0, "\(counter): \(live)")
        }
        #expect(!recorded.contains("up_limit") && !recorded.contains("down_limit"), "\(recorded)")
        let inputs = recorded.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasSuffix(" end") && !$0.hasPrefix("0 set ") && $0 != "0 inputs as taken" }
        #expect(inputs.count == Self.scenario.split(separator: "\n").count - 1, "every input recorded once:\n\(recorded)")
    }

    @Test("an arm stuck in the run is in the recording, so the replay faults where the run did")
    func plantActionIsRecorded() throws {
        let script = Self.scenario.replacingOccurrences(of: "8.5 end", with: "6.3 arm stuck\n8.2 arm free\n8.4 pulse service\n9.8 end")
        // The daemon's simulated source tells the controller of a plant action
        // (`Controller.notePlantAction`), so the recorder writes it in the plant's words.
        let (live, replay, recorded) = try Self.recordAndReplay(script)
        #expect(live.counters["faults"] == 2, "the stuck arm is a fault: \(live)")
        #expect(recorded.contains(" arm stuck\n") && recorded.contains(" arm free\n"), "\(recorded)")
        #expect(live == replay, "--- run: \(live)\n--- simulate: \(replay)\n--- recording:\n\(recorded)")
    }

    /// On the barrier, commands (`fault`, `repair`, an emergency) within
    /// milliseconds of the inputs before them — a request's pulse, a vehicle on the loop —
    /// before its debounce ends, within its bounce, just after it is taken, at random. The
    /// replay takes every input at the instant the run did (`inputs as taken`), so it ends
    /// where the run did.
    @Test("commands within milliseconds of the inputs they follow replay in the order the run took them", arguments: 0..<2)
    func commandsNearInputsReplayInOrder(run: Int) throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let seedText = "seed \(seed)"
        var lines: [String] = []
        var time = 200  // milliseconds
        func at(_ ms: Int) -> String { "\(ms / 1000).\(String(1000 + ms % 1000).dropFirst())" }
        for round in 0..<4 {
            lines.append("\(at(time)) pulse request")
            let near = time + 5 + Int(random.next(below: 21))
            switch round % 2 {
            case 0:
                lines.append("\(at(near)) event fault")
                lines.append("\(at(near + 300)) pulse service")
            default:
                lines.append("\(at(near)) event emergencyOn")
                lines.append("\(at(near + 300)) event emergencyOff")
            }
            time = near + 2_200  // the quick arm (0.5 s) is up and hold_open (1.5 s) has run out
        }
        lines.append("\(at(time + 2_500)) end")
        let script = lines.joined(separator: "\n") + "\n"
        let (live, replay, recorded) = try Self.recordAndReplay(script)
        #expect(live == replay, "\(seedText)\n--- run: \(live)\n--- simulate: \(replay)\n--- scenario:\n\(script)\n--- recording:\n\(recorded)")
    }
}
