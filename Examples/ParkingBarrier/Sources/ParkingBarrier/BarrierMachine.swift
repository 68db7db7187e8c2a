import ControllerFSM

/// The barrier's states (DESIGN.md, "The parking barrier").
public enum BarrierState: Int, MachineSymbol {
    case closed, opening, open, closing, fault, emergency
}

/// The barrier's events. Each level input has two: its active and its inactive edge.
public enum BarrierEvent: Int, MachineSymbol {
    case request
    /// The induction loop: a vehicle drove onto it, or left it.
    case vehicleIn, vehicleOut
    /// The safety beam across the lane: broken, or whole again.
    case blocked, unblocked
    /// The limit switches: the arm reached, or left, its top or its rest.
    case upReached, upLeft, downReached, downLeft
    /// The current state's timer.
    case timeout
    case fault, repair, emergencyOn, emergencyOff
}

/// The barrier's one timer: the current state's, cancelled when the state is left.
public enum BarrierTimer: Int, MachineTimer {
    case state
}

/// The `[barrier]` section of a board file.
public struct BarrierSettings: Hashable, Sendable {
    /// The arm must reach its end within this, or the barrier is at fault.
    public var motorTimeout: Duration = .seconds(6)
    /// How long the lane must stay clear after a vehicle before the arm comes down.
    public var closeDelay: Duration = .seconds(1)
    /// How long an opening waits for a vehicle.
    public var holdOpen: Duration = .seconds(20)

    public init() {}
}

/// What the barrier counts.
public struct BarrierCounters: Hashable, Sendable {
    public var requests = 0
    /// Requests in `fault` or `emergency`, which do not move the arm.
    public var refusedRequests = 0
    public var passages = 0
    /// Openings that ended without a vehicle.
    public var expiredOpenings = 0
    /// Closings turned back by a vehicle on the loop or a broken beam.
    public var reversals = 0
    public var faults = 0
    public var repairs = 0

    public init() {}
}

/// The barrier's data. The four levels are the inputs' own: the host writes each before its
/// edge's event, in every state, so the rows below only read them.
public struct BarrierContext: Sendable {
    /// A vehicle is over the induction loop.
    public var loop = false
    /// The safety beam is broken.
    public var photocell = false
    /// The arm is fully up.
    public var upLimit = false
    /// The arm is fully down.
    public var downLimit = false
    /// A vehicle has left the loop since the barrier opened: the closing is not an expiry.
    public var passed = false
    /// The emergency interrupted a fault: it needs a repair once the alarm ends.
    public var faultBeforeEmergency = false
    /// In `emergency`: `motor_up` is on, the arm has not reached its top yet.
    public var rising = false
    public var counters = BarrierCounters()
    public private(set) var settings: BarrierSettings
    // In nanoseconds once, so the event path never divides a Duration.
    private(set) var motorTimeout: Int64 = 0
    private(set) var closeDelay: Int64 = 0
    private(set) var holdOpen: Int64 = 0

    public init(settings: BarrierSettings = BarrierSettings()) {
        self.settings = settings
        apply(settings)
    }

    /// Takes new settings (a reloaded board file); a running timer keeps its deadline.
    public mutating func apply(_ settings: BarrierSettings) {
        self.settings = settings
        motorTimeout = settings.motorTimeout.nanosecondCount
        closeDelay = settings.closeDelay.nanosecondCount
        holdOpen = settings.holdOpen.nanosecondCount
    }

    /// No vehicle on the loop and the beam whole: the arm may come down.
    public var isClear: Bool { !loop && !photocell }
}

/// The barrier, one block per state: each block holds the state's entry and exit work, every
/// event it answers and where each one leads. Any other (state, event) pair is ignored.
public enum BarrierMachine {
    public typealias Definition = MachineDefinition<BarrierState, BarrierEvent, BarrierContext>
    public typealias Table = TransitionTable<BarrierState, BarrierEvent, BarrierContext>
    public typealias Machine = StateMachine<BarrierState, BarrierEvent, BarrierContext>
    public typealias Step = Effects<BarrierState, BarrierEvent>

    /// The compiled table. The definition is fixed, so failing to compile is a programming error.
    public static let table: Table = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the parking barrier's own definition is invalid: \(error)")
        }
    }()

    public static func definition() -> Definition {
        var definition = Definition(initial: .closed)
        let timer = BarrierTimer.state

        definition.state(.closed) { s in
            s.on(.request, to: .opening, countRequest)
            s.on(.downLeft, to: .fault, countFault)  // the arm left its rest without a command
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.opening) { s in
            s.onEntry { c, fx in
                // Already up: straight on to `open`, through the same row as the limit's edge.
                if c.upLimit { fx.send(.upReached) } else { fx.startTimer(timer, afterNanoseconds: c.motorTimeout, sending: .timeout) }
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
            s.on(.upReached, to: .open)
            s.on(.timeout, to: .fault, countFault)  // the arm did not reach its top
            s.on(.request, countRequest)
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.open) { s in
            s.onEntry { c, fx in
                c.passed = false
                fx.startTimer(timer, afterNanoseconds: c.holdOpen, sending: .timeout)
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
            s.on(.request, countRequest)
            s.on(.vehicleIn) { _, fx in fx.cancelTimer(timer) }
            s.on(.vehicleOut) { c, fx in
                c.counters.passages += 1
                c.passed = true
                fx.startTimer(timer, afterNanoseconds: c.closeDelay, sending: .timeout)
            }
            s.on(.timeout, when: Guard("a vehicle on the loop or the beam broken") { !$0.isClear }) { c, fx in
                fx.startTimer(timer, afterNanoseconds: c.closeDelay, sending: .timeout)
            }
            s.on(.timeout, when: Guard("clear, passed") { $0.isClear && $0.passed }, to: .closing)
            s.on(.timeout, when: Guard("clear, not passed") { $0.isClear && !$0.passed }, to: .closing) { c, _ in
                c.counters.expiredOpenings += 1
            }
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.closing) { s in
            s.onEntry { c, fx in
                if c.downLimit { fx.send(.downReached) } else { fx.startTimer(timer, afterNanoseconds: c.motorTimeout, sending: .timeout) }
            }
            s.onExit { _, fx in fx.cancelTimer(timer) }
            s.on(.downReached, to: .closed)
            s.on(.timeout, to: .fault, countFault)  // the arm did not reach its rest
            s.on(.blocked, to: .opening, reverse)
            s.on(.vehicleIn, to: .opening, reverse)
            s.on(.request, to: .opening, countRequest)
            s.on(.fault, to: .fault, countFault)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.fault) { s in
            s.on(.repair, to: .opening) { c, _ in c.counters.repairs += 1 }
            s.on(.request, refuseRequest)
            s.on(.emergencyOn, to: .emergency, interrupt)
        }

        definition.state(.emergency) { s in
            // The barrier lifts for evacuation.
            s.onEntry { c, fx in
                c.rising = !c.upLimit
                if c.rising { fx.startTimer(timer, afterNanoseconds: c.motorTimeout, sending: .timeout) }
            }
            s.onExit { c, fx in
                c.rising = false
                fx.cancelTimer(timer)
            }
            s.on(.upReached) { c, fx in
                c.rising = false
                fx.cancelTimer(timer)
            }
            s.on(.timeout) { c, _ in
                c.rising = false
                c.counters.faults += 1
                c.faultBeforeEmergency = true
            }
            s.on(.request, refuseRequest)
            s.on(.emergencyOff, when: Guard("remembered fault") { $0.faultBeforeEmergency }, to: .fault)
            s.on(.emergencyOff, to: .open)
        }

        return definition
    }

    // Actions shared by several states' rows.

    private static func countRequest(_ c: inout BarrierContext, _: inout Step) { c.counters.requests += 1 }
    private static func refuseRequest(_ c: inout BarrierContext, _: inout Step) { c.counters.refusedRequests += 1 }
    private static func countFault(_ c: inout BarrierContext, _: inout Step) { c.counters.faults += 1 }
    private static func reverse(_ c: inout BarrierContext, _: inout Step) { c.counters.reversals += 1 }

    private static func interrupt(_ c: inout BarrierContext, _ fx: inout Step) {
        c.faultBeforeEmergency = fx.state == .fault
    }
}

/// The outputs as functions of state and context (logical levels: true is asserted).
extension BarrierState {
    public func motorUp(_ c: BarrierContext) -> Bool { self == .opening || (self == .emergency && c.rising) }
    public func motorDown(_: BarrierContext) -> Bool { self == .closing }
    public var green: Bool { self == .open }
    public var red: Bool { !green }
    public var alarm: Bool { self == .fault }
}
