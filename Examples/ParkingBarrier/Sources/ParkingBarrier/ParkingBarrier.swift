import ControllerFSM
import ControllerHost

/// The parking barrier, declared once for the runtime (docs/parking-barrier.md): its
/// machine, how its lines bind to it, its `[barrier]` section, what it counts, what an operator
/// may send it and what must always hold. Everything else — board files, lines, the daemon, the
/// store, status, metrics, the simulator — the runtime derives from this.
public enum ParkingBarrier: ControllerApplication {
    public typealias State = BarrierState
    public typealias Event = BarrierEvent
    public typealias Context = BarrierContext
    public typealias Settings = BarrierSettings
    public typealias Plant = BarrierPlant

    public static let name = "barrier"
    public static let summary = "The parking barrier controller, on real GPIO or simulated."
    /// A request's edge to the motor that lifts the arm: the path a driver waits on.
    public static let latencyOutput: RoleName? = "motor_up"
    public static let builtInBoard = BuiltInBoard(text: simBoardText, file: simBoardFile)
    public static var table: BarrierMachine.Table { BarrierMachine.table }

    public static let settings = SettingsDeclaration<Self>(section: "barrier", defaults: BarrierSettings(), keys: [
        .duration("motor_timeout", \.motorTimeout, summary: "how long the arm may take to reach its end before it is a fault"),
        .duration("close_delay", \.closeDelay, summary: "how long the lane must be clear after a vehicle before the arm comes down"),
        .duration("hold_open", \.holdOpen, summary: "how long an opening waits for a vehicle"),
        .duration("limit_settle", \.limitSettle,
                  summary: "how long a limit switch must hold its level, motors off, before it is believed after the arm was driven away from it"),
    ], relations: BarrierRelations.board, simulatedRelations: BarrierRelations.simulated)

    public static func makeContext(_ settings: BarrierSettings) -> BarrierContext { BarrierContext(settings: settings) }

    public static func apply(_ settings: BarrierSettings, to context: inout BarrierContext) { context.apply(settings) }

    public static let inputs: [InputDeclaration<Self>] = [
        .pulse("request", sends: .request, required: true, simulatedPulse: .milliseconds(100),
               summary: "a ticket machine's or card reader's relay, or a button: a pulse lifts the arm"),
        .level("loop", on: .vehicleIn, off: .vehicleOut, required: true,
               summary: "the induction loop under the arm: active while a vehicle is over it") { $0.loop = $1 },
        .level("photocell", on: .blocked, off: .unblocked, required: true,
               summary: "the safety beam across the lane: active while it is broken") { $0.photocell = $1 },
        .level("up_limit", on: .upReached, off: .upLeft, required: true,
               summary: "the limit switch at the top: active while the arm is fully up") { c, level in
                   c.upLimit = level
                   c.upStale = false
               },
        .level("down_limit", on: .downReached, off: .downLeft, required: true,
               summary: "the limit switch at the rest: active while the arm is fully down") { c, level in
                   c.downLimit = level
                   c.downStale = false
               },
        .pulse("service", sends: .repair, simulatedPulse: .milliseconds(100), summary: "the service key: a pulse repairs a fault"),
        .condition("emergency", on: .emergencyOn, off: .emergencyOff,
                   summary: "the fire-alarm contact: the arm lifts and stays up while it is active"),
    ]

    // The motors are one interlock: the host stops the running one before it starts the other
    // (a reversal, closing to opening, swaps them in one step), and starts neither while the
    // other's line still holds it on. A motor whose line cannot be written is a mechanism out of
    // control: a fault, which stops both. Both stop when the controller does.
    public static let outputs: [OutputDeclaration<Self>] = [
        OutputDeclaration("motor_down", required: true, initial: false, stop: { _ in false }, onWriteFailure: .fault,
                          interlock: "motors", summary: "the motor that lowers the arm",
                          meaning: OutputMeaning(on: "lowering", off: "stopped")) { state, c in state.motorDown(c) },
        OutputDeclaration("motor_up", required: true, initial: false, stop: { _ in false }, onWriteFailure: .fault,
                          interlock: "motors", summary: "the motor that lifts the arm",
                          meaning: OutputMeaning(on: "lifting", off: "stopped")) { state, c in state.motorUp(c) },
        OutputDeclaration("green", initial: false, summary: "the green lamp: drive on, on while open",
                          meaning: OutputMeaning(on: "drive on", off: "off"),
                          requires: OutputPrecondition("the up limit is active (the arm is up)") { _, c in c.upLimit }) { state, _ in state.green },
        OutputDeclaration("red", initial: true, summary: "the red lamp: on whenever green is off",
                          meaning: OutputMeaning(on: "stop", off: "off")) { state, _ in state.red },
        OutputDeclaration("alarm", initial: false, summary: "the alarm sounder: on while at fault",
                          meaning: OutputMeaning(on: "sounding", off: "quiet")) { state, _ in state.alarm },
    ]

    public static let counters: [CounterDeclaration<Self>] = [
        CounterDeclaration("requests", summary: "requests taken to lift the arm") { $0.counters.requests },
        CounterDeclaration("refusedRequests", summary: "requests refused at fault or in an emergency") { $0.counters.refusedRequests },
        CounterDeclaration("passages", summary: "vehicles that left the loop while open") { $0.counters.passages },
        CounterDeclaration("expiredOpenings", summary: "openings no vehicle used") { $0.counters.expiredOpenings },
        CounterDeclaration("reversals", summary: "closings turned back by a vehicle or the beam") { $0.counters.reversals },
        CounterDeclaration("faults", summary: "mechanism faults") { $0.counters.faults },
        CounterDeclaration("repairs", summary: "repairs of a fault") { $0.counters.repairs },
    ]

    /// Home Assistant: a `problem` binary sensor, on while the barrier is at fault, and the barrier
    /// as a `cover` of class `gate`, opened by the `request` command (closing is the barrier's
    /// own: it closes once the vehicle has passed, or the opening expires).
    public static var homeAssistant: HomeAssistantHints<Self> {
        HomeAssistantHints(
            faultStates: [.fault],
            cover: .init(deviceClass: "gate", open: .request, openStates: [.open], opening: [.opening], closing: [.closing]),
            inputDeviceClasses: ["loop": "occupancy", "photocell": "occupancy", "emergency": "safety"])
    }

    public static let commands: [DirectCommand<Self>] = [
        // As the request button gives it: the machine refuses it at fault and in an emergency,
        // as it refuses the button's, and never lowers the arm on a vehicle for it.
        DirectCommand(.request, summary: "a request to lift the arm, as the request button gives it"),
        DirectCommand(.fault, summary: "the mechanism reports a failure"),
        DirectCommand(.repair, summary: "a repair, as the service key gives it"),
        DirectCommand(.emergencyOn, summary: "declare a fire alarm"),
        DirectCommand(.emergencyOff, summary: "withdraw a declared fire alarm (the contact may still hold it)"),
    ]

    public static let invariants: [Invariant<Self>] = [
        Invariant("motor_up and motor_down are never both on") { state, c in !(state.motorUp(c) && state.motorDown(c)) },
        Invariant("motor_down is never on while a vehicle is on the loop or the beam is broken") { state, c in
            !state.motorDown(c) || c.isClear
        },
        Invariant("a motor never drives the arm past its limit switch") { state, c in
            !(state.motorUp(c) && c.upLimit) && !(state.motorDown(c) && c.downLimit)
        },
    ]
}
