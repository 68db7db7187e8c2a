import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Foundation
import Testing

@testable import ControllerStore

/// A state count whose state is in a second parallel region (or is a superstate) is counted when
/// that region enters or leaves it, by the controller and by the store alike: a ledger entry
/// carries which counted states are active, not only the first region's innermost state.
@Suite("State counts in every region")
struct RegionStateCountTests {
    /// A panel: a switch (the first region) and a fuse beside it (the second), which a surge
    /// blows and a replacement restores.
    enum Panel: ControllerApplication {
        enum State: Int, MachineSymbol { case panel, power, off, on, fuse, intact, blown }
        enum Event: Int, MachineSymbol { case press, surge, replace }
        struct Settings: Hashable, Sendable {}

        static let name = "panel"
        static let table: TransitionTable<State, Event, Int> = {
            var definition = MachineDefinition<State, Event, Int>(initial: .panel)
            definition.parallel(.panel) { _ in }
            definition.state(.power, in: .panel) { s in s.initial(.off) }
            definition.state(.off, in: .power) { s in s.on(.press, to: .on) }
            definition.state(.on, in: .power) { s in s.on(.press, to: .off) }
            definition.state(.fuse, in: .panel) { s in s.initial(.intact) }
            definition.state(.intact, in: .fuse) { s in s.on(.surge, to: .blown) }
            definition.state(.blown, in: .fuse) { s in s.on(.replace, to: .intact) }
            do { return try definition.compile() } catch { fatalError("\(error)") }
        }()
        static let settings = SettingsDeclaration<Self>(section: "panel", defaults: Settings(), keys: [])
        static func makeContext(_: Settings) -> Int { 0 }
        static func apply(_: Settings, to _: inout Int) {}
        static let inputs: [InputDeclaration<Self>] = [
            .pulse("button", sends: .press, required: true, simulatedPulse: .milliseconds(100)),
        ]
        static let outputs: [OutputDeclaration<Self>] = [
            OutputDeclaration("light", required: true, initial: false) { active, _ in active.isActive(.on) && active.isActive(.intact) },
        ]
        static let counters: [CounterDeclaration<Self>] = []
        static let stateCounts: [StateCount<Self>] = [
            .entering(.blown, counts: "blowouts"), .leaving(.blown, counts: "replacements"), .entering(.on, counts: "switchOns"),
        ]
        static let commands: [DirectCommand<Self>] = [DirectCommand(.surge), DirectCommand(.replace)]
    }

    @Test("the second region's state entered and left, counted by the controller and booked by the store")
    func secondRegionCounts() throws {
        let board = try Board<Panel>.parse("""
            [board]
            name = "panel"
            backend = "sim"
            chip = "panel-sim"

            [inputs.button]
            line = "BUTTON"

            [outputs.light]
            line = "LIGHT"
            """, file: "panel.toml")
        let chip = SimChip(label: "panel-sim", lines: ["BUTTON", "LIGHT"], clock: ManualClock())
        let ledger = Controller<Panel, SimChip>.Ledger(capacity: 64)
        let controller = try Controller<Panel, SimChip>(chip: chip, board: board, ledger: ledger)
        try controller.start(at: .zero)
        try controller.send(.surge, at: .zero + .seconds(1))
        chip.schedulePulse(line: 0, at: .zero + .seconds(2), width: .milliseconds(100))
        chip.advance(to: .zero + .seconds(3))
        try controller.process(now: .zero + .seconds(3))
        try controller.send(.replace, at: .zero + .seconds(4))
        try controller.send(.surge, at: .zero + .seconds(5))
        #expect(controller.activeStates == [.on, .blown])
        #expect(controller.output("light") == false)
        #expect(["blowouts", "replacements", "switchOns"].map { controller.count(named: $0) } == [2, 1, 1])

        let scratch = try ScratchDirectory()
        let store = try CountStore<Panel>.open(path: scratch.file())
        try store.beginSession(monotonicOrigin: .zero, wallClockOrigin: Date(timeIntervalSince1970: 1_700_000_000))
        var entries: [LedgerEntry<Panel>] = []
        _ = ledger.drain { entries.append($0) }
        let committed = try store.append(entries)
        #expect(committed.activeStates == [.on, .blown], "the ledger carries every region's state to what the site publishes")
        #expect(committed.configuration == [.panel, .power, .on, .fuse, .blown])
        let totals = try store.totals()
        #expect(totals.counters == ["ignored": 0, "blowouts": 2, "replacements": 1, "switchOns": 1])
        try store.close()
    }
}
