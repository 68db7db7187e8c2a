import ControllerTestSupport
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Testing

/// A line held too long on either side of its level: a door contact
/// (`door_closed`, a level) held inactive — the door held open — past its limit sends its event,
/// as a push held active does for the turnstile. The time counts from the edge onto the held
/// side, or from the start when the line is already there; the edge off it ends the episode.
@Suite("Held too long, on either side of a level")
struct HeldTooLongSideTests {
    enum DoorState: Int, MachineSymbol { case closed, open, heldOpen }
    enum DoorEvent: Int, MachineSymbol { case opened, closed, heldTooLong, pressed }
    struct DoorSettings: Hashable, Sendable { var heldOpen = Duration.seconds(30) }
    struct DoorContext: Sendable { var alarms = 0 }

    static let doorTable: TransitionTable<DoorState, DoorEvent, DoorContext> = {
        var definition = MachineDefinition<DoorState, DoorEvent, DoorContext>(initial: .closed)
        definition.state(.closed) { s in
            s.on(.opened, to: .open)
            s.on(.heldTooLong, to: .heldOpen) { c, _ in c.alarms += 1 }
        }
        definition.state(.open) { s in
            s.on(.closed, to: .closed)
            s.on(.heldTooLong, to: .heldOpen) { c, _ in c.alarms += 1 }
        }
        definition.state(.heldOpen) { s in s.on(.closed, to: .closed) }
        do { return try definition.compile() } catch { fatalError("\(error)") }
    }()

    /// The door's contact is active while the door is closed; held inactive (open) too long is
    /// the alarm. `side` chooses which side the declaration watches (`.active` watches a contact
    /// held closed too long instead, the turnstile's case on a level).
    enum Door<Side: HeldSide>: ControllerApplication {
        typealias State = DoorState
        typealias Event = DoorEvent
        typealias Context = DoorContext
        typealias Settings = DoorSettings
        static var name: String { "door" }
        static var table: TransitionTable<DoorState, DoorEvent, DoorContext> { doorTable }
        static var settings: SettingsDeclaration<Self> {
            SettingsDeclaration(section: "door", defaults: DoorSettings(), keys: [.duration("held_open", \.heldOpen)])
        }
        static func makeContext(_ settings: DoorSettings) -> DoorContext { DoorContext() }
        static func apply(_ settings: DoorSettings, to context: inout DoorContext) {}
        static var inputs: [InputDeclaration<Self>] {
            [
                .level("door_closed", on: .closed, off: .opened, required: true,
                       heldTooLong: HeldTooLong(after: \.heldOpen, on: Side.side, sends: .heldTooLong)),
                .pulse("button", sends: .pressed, simulatedPulse: .milliseconds(100)),
            ]
        }
        static var outputs: [OutputDeclaration<Self>] {
            [OutputDeclaration("alarm", initial: false) { state, _ in state == .heldOpen }]
        }
        static var counters: [CounterDeclaration<Self>] { [CounterDeclaration("alarms") { $0.alarms }] }
        static var commands: [DirectCommand<Self>] { [] }
    }

    protocol HeldSide { static var side: HeldTooLong<Door<Self>>.Side { get } }
    enum Inactive: HeldSide { static var side: HeldTooLong<Door<Self>>.Side { .inactive } }
    enum Active: HeldSide { static var side: HeldTooLong<Door<Self>>.Side { .active } }

    static let limit = Duration.seconds(30)
    static let debounce = Duration.milliseconds(10)

    /// A controller on a simulated chip whose door contact starts `closedAtStart`, then changes
    /// level at each of `changes` (seconds), run to `end`. Returns the alarms raised.
    static func run<Side: HeldSide>(_: Side.Type, closedAtStart: Bool, changes: [Double], end: Double) throws -> Int {
        let clock = ManualClock()
        let chip = SimChip(label: "door-sim", lines: [SimLine("DOOR_CLOSED"), SimLine("BUTTON"), SimLine("ALARM")], clock: clock)
        let board = try Board<Door<Side>>.parse("""
            [board]
            name = "door"
            backend = "sim"
            chip = "door-sim"

            [inputs.door_closed]
            line = "DOOR_CLOSED"
            debounce = "10ms"

            [inputs.button]
            line = "BUTTON"

            [outputs.alarm]
            line = "ALARM"

            [door]
            held_open = "30s"
            """, file: "door.toml")
        chip.scheduleLevel(line: GPIOLineOffset(0), at: .zero, active: closedAtStart)
        chip.advance(to: .zero)
        let controller = try Controller<Door<Side>, SimChip>(chip: chip, board: board)
        try controller.start(at: .zero)
        var level = closedAtStart
        for change in changes {
            level.toggle()
            chip.scheduleLevel(line: GPIOLineOffset(0), at: .zero + .seconds(change), active: level)
        }
        var now = MachineInstant.zero
        let stop = MachineInstant.zero + .seconds(end)
        while now < stop {
            now = min(stop, now + .milliseconds(5))
            chip.advance(to: now)
            try controller.process(now: now)
        }
        return controller.context.alarms
    }

    @Test("a door held open past the limit raises the alarm once; closing it in time raises none")
    func heldOpen() throws {
        #expect(try Self.run(Inactive.self, closedAtStart: true, changes: [1, 40], end: 60) == 1)
        #expect(try Self.run(Inactive.self, closedAtStart: true, changes: [1, 20], end: 60) == 0)
        #expect(try Self.run(Inactive.self, closedAtStart: true, changes: [1, 20, 25, 45], end: 60) == 0,
                "each opening is its own episode: 19 s, then 20 s")
    }

    @Test("a door already open at the start counts from the start")
    func openAtStart() throws {
        #expect(try Self.run(Inactive.self, closedAtStart: false, changes: [], end: 31) == 1)
        #expect(try Self.run(Inactive.self, closedAtStart: false, changes: [29], end: 60) == 0)
    }

    @Test("the active side still works on a level: the contact held closed too long")
    func activeSide() throws {
        #expect(try Self.run(Active.self, closedAtStart: true, changes: [], end: 31) == 1)
        #expect(try Self.run(Active.self, closedAtStart: false, changes: [1, 20], end: 60) == 0)
    }

    @Test("random hold times around the limit, on either side: the alarm is raised exactly when the hold reaches the limit",
          arguments: 0..<24)
    func randomHolds(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 0x4845_4C44)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(random.next() % 1_000_000) / 1_000_000 * (range.upperBound - range.lowerBound)
        }
        // Holds within a second of the limit, but not within the debounce and the 5 ms step of
        // it, where the answer depends on which side of the sampling the edge falls.
        let margin = 0.05
        let hold = Self.limit.seconds + uniform(0.1...1) * (random.next() % 2 == 0 ? 1 : -1)
        let start = uniform(0.5...3)
        let active = random.next() % 2 == 0
        let expected = hold >= Self.limit.seconds + margin ? 1 : 0
        if active {
            // Held side: active, the contact closed; the line starts open.
            #expect(try Self.run(Active.self, closedAtStart: false, changes: [start, start + hold], end: start + hold + 5) == expected,
                    "active side, held \(hold) s from \(start) s")
        } else {
            #expect(try Self.run(Inactive.self, closedAtStart: true, changes: [start, start + hold], end: start + hold + 5) == expected,
                    "inactive side, held \(hold) s from \(start) s")
        }
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
