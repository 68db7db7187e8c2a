import ControllerTestSupport
import ControllerFSM
import ControllerHost
import ControllerSimulation
import Foundation
import Testing
import Turnstile

/// One validation for every entry point: each relation a timing is held to
/// is checked, with the same verdict, wherever a setting can come from — a board file read
/// (`check`, `run`, `simulate`, a SIGHUP reload all read it through `Board.parse`, a simulated
/// board through `Board.loadRunnable` besides) and a scenario's `set TIMING SECONDS` (checked with
/// the scenario before anything runs, `simulate` and `run --script` alike). Generated for every
/// relation of the application: the value just below the smallest is refused at every entry
/// point, the smallest itself is taken at every one.
@Suite("Settings: one validation, every entry point × every relation")
struct SettingsValidationEntryPointTests {
    typealias App = TurnstileApplication

    /// The built-in simulated board's text with `key` of the `[turnstile]` section set to
    /// `value`, and with its backend set to `backend`.
    static func boardText(_ key: String, _ value: Duration, backend: String) -> String {
        var lines = App.builtInBoard.text.components(separatedBy: "\n").filter { !$0.hasPrefix("\(key) = ") }
        if let section = lines.firstIndex(of: "[\(App.settings.section)]") {
            lines.insert("\(key) = \"\(Self.seconds(value))s\"", at: section + 1)
        }
        return lines.joined(separator: "\n").replacingOccurrences(of: #"backend = "sim""#, with: #"backend = "\#(backend)""#)
    }

    /// A duration as a board file and a scenario write it: seconds to the nanosecond.
    static func seconds(_ value: Duration) -> String {
        let ns = value.nanosecondCount
        return "\(ns / 1_000_000_000).\(String(1_000_000_000 + ns % 1_000_000_000).dropFirst())"
    }

    /// Every key some relation holds to a floor.
    static var relationKeys: [String] {
        var keys: [String] = []
        for relation in App.settings.relations + App.settings.simulatedRelations where !keys.contains(relation.key) {
            keys.append(relation.key)
        }
        return keys
    }

    @Test("every timing key has a floor: a relation names it", arguments: App.settings.durationKeys.map(\.name))
    func everyTimingHasAFloor(key: String) {
        #expect(Self.relationKeys.contains("\(App.settings.section).\(key)"), "\(key) has no relation: nothing stops a unit slip")
    }

    /// The smallest value of `keyPath` every relation on it takes, on the built-in board
    /// (simulated, or not).
    static func smallest(_ keyPath: String, simulated: Bool) -> Duration {
        let base = Board<App>.builtIn
        let relations = App.settings.relations + (simulated ? App.settings.simulatedRelations : [])
        return relations.filter { $0.key == keyPath }.map { TimingRelations.roundedUp($0.smallest(base)) }.max() ?? .zero
    }

    @Test("below the smallest: refused by the board file, a reload and a scenario's set; the smallest: taken by all",
          arguments: relationKeys)
    func entryPoints(keyPath: String) throws {
        let name = String(keyPath.split(separator: ".").last!)
        let base = Board<App>.builtIn
        for backend in ["sim", "libgpiod"] {
            let simulated = backend == "sim"
            let smallest = Self.smallest(keyPath, simulated: simulated)
            for (value, refused) in [(smallest - .microseconds(1), true), (smallest, false)] {
                // A board file, as check, run and simulate read it; as run and a reload read it
                // (Board.loadRunnable is BoardReload's).
                let text = Self.boardText(name, value, backend: backend)
                let parsed = Result { try Board<App>.parse(text, file: "board.toml") }
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entry-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let path = directory.appendingPathComponent("board.toml").path
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                let reloaded = Result { try Board<App>.loadRunnable(path: path) }
                // A plain read holds a simulated board to the board relations and the simulated ones alike.
                for (entryPoint, result) in [("board file", parsed.map { _ in () }), ("reload", reloaded.map { _ in () })] {
                    switch result {
                    case .success: #expect(!refused, "\(entryPoint) (\(backend)) took \(name) = \(Self.seconds(value)) s")
                    case .failure(let error):
                        #expect(refused, "\(entryPoint) (\(backend)) refused \(name) = \(Self.seconds(value)) s: \(error)")
                        #expect("\(error)".contains(keyPath), "\(error)")
                    }
                }
                guard simulated else { continue }
                // A scenario's set, on the built-in (simulated) board.
                let scenario = try Scenario<App>.parse(
                    "1 set \(name) \(Self.seconds(value))\n2 end\n", file: "set.txt", vocabulary: Simulation<App>.vocabulary(for: base))
                let checked = Result { () throws(ScenarioError) in try Simulation<App>.check(scenario, against: base) }
                switch checked {
                case .success: #expect(!refused, "the scenario's set took \(name) \(Self.seconds(value))")
                case .failure(let error):
                    #expect(refused, "the scenario's set refused \(name) \(Self.seconds(value)): \(error)")
                    #expect(error.line == 1 && "\(error)".contains(keyPath), "\(error)")
                }
            }
        }
    }

    @Test("a scenario's set relock_timeout 0.001 is refused before anything runs, naming the line and the floor")
    func relockTimeoutTypo() throws {
        let base = Board<App>.builtIn
        let scenario = try Scenario<App>.parse("0.5 coin\n1 set relock_timeout 0.001\n2 end\n", file: "typo.txt",
                                               vocabulary: Simulation<App>.vocabulary(for: base))
        #expect(throws: ScenarioError.self) { try Simulation<App>.check(scenario, against: base) }
        do {
            try Simulation<App>.check(scenario, against: base)
        } catch {
            #expect(error.line == 2)
            #expect("\(error)".contains("turnstile.relock_timeout") && "\(error)".contains("too short"), "\(error)")
        }
    }
}
