/// The machines measured.
public enum MachineKind: String, CaseIterable, Sendable {
    /// The turnstile (docs/turnstile.md) written flat (`FlatTurnstileMachine`): 5 states, 7 events, guards,
    /// one timer.
    case turnstile
    /// 50 states x 50 events, generated (scripts/generate-complex.py).
    case complex
    /// The turnstile with superstates, three levels (`TurnstileMachine` itself), on the
    /// turnstile's stream: its reference is the flat C switch, beside a C baseline in QP/C's
    /// QHsm style.
    case nestedTurnstile = "turnstile-nested"

    /// The implementations measured for this machine, the reference (`cSwitch`) first.
    public var implementations: [Implementation] {
        switch self {
        case .turnstile, .complex: [.cSwitch, .swiftSwitch, .closureDictionary, .controllerFSM, .controllerFSMFullRuntime]
        case .nestedTurnstile: [.cSwitch, .cQHsm, .controllerFSM, .controllerFSMFullRuntime]
        }
    }
}

/// The implementations of each machine, all run on the same stream.
public enum Implementation: String, CaseIterable, Sendable {
    /// Hand-written C `switch`: the practical lower bound, and the reference for ratios. For the
    /// nested turnstile, the flat turnstile's switch (the same work without superstates).
    case cSwitch = "c-switch"
    /// Hand-written C in QP/C's QHsm style: a handler function per state returning handled,
    /// super or transition (nested machines only).
    case cQHsm = "c-qhsm"
    /// Hand-written Swift `switch`.
    case swiftSwitch = "swift-switch"
    /// `[State: [Event: [Transition]]]` with closures, as most Swift state-machine libraries are.
    case closureDictionary = "closure-dictionary"
    /// ControllerFSM's `StateMachine`, `send(_:at:)` on one thread: the same features as the switch.
    case controllerFSM = "controllerfsm"
    /// ControllerFSM's full runtime: `ConcurrentMachine` (`MutexLock`, manual clock), the
    /// run-to-completion queue, and a trace ring drained every `traceDrainInterval` events.
    case controllerFSMFullRuntime = "controllerfsm-full"
}

/// What an implementation computed, for comparing implementations of one machine.
public enum MachineResult: Equatable, Sendable, CustomStringConvertible {
    case turnstile(TurnstileSnapshot)
    case complex(ComplexSnapshot)

    public var description: String {
        switch self {
        case .turnstile(let snapshot): snapshot.description
        case .complex(let snapshot): snapshot.description
        }
    }
}

/// One implementation of one machine with its own, fresh state, running its machine's stream.
/// Benchmarks and the callgrind probe drive implementations only through this.
///
/// The runners for the two machines look alike but are written out per machine on purpose: a
/// generic runner class reached through `any StreamRunner` would run its loop unspecialised
/// (class methods dispatch to the generic implementation), which is what the benchmark must not
/// measure.
public protocol StreamRunner: AnyObject {
    /// Dispatches the first `count` events of the stream, continuing from the state the previous
    /// call left.
    func run(first count: Int)
    var result: MachineResult { get }
    /// Anything wrong that `result` does not show (e.g. lost trace records); empty when all is well.
    var problems: [String] { get }
}

extension StreamRunner {
    public var problems: [String] { [] }
}

/// A fresh implementation, started (initial state entered).
public func makeRunner(_ machine: MachineKind, _ implementation: Implementation) -> any StreamRunner {
    switch (machine, implementation) {
    case (.turnstile, .cSwitch): TurnstileCSwitchRunner()
    case (.turnstile, .swiftSwitch): TurnstileSwiftSwitchRunner()
    case (.turnstile, .closureDictionary): TurnstileClosureDictionaryRunner()
    case (.turnstile, .controllerFSM): TurnstileControllerFSMRunner()
    case (.turnstile, .controllerFSMFullRuntime): TurnstileFullRuntimeRunner()
    case (.complex, .cSwitch): ComplexCSwitchRunner()
    case (.complex, .swiftSwitch): ComplexSwiftSwitchRunner()
    case (.complex, .closureDictionary): ComplexClosureDictionaryRunner()
    case (.complex, .controllerFSM): ComplexControllerFSMRunner()
    case (.complex, .controllerFSMFullRuntime): ComplexFullRuntimeRunner()
    case (.nestedTurnstile, .cSwitch): TurnstileCSwitchRunner()
    case (.nestedTurnstile, .cQHsm): NestedTurnstileQHsmRunner()
    case (.nestedTurnstile, .controllerFSM): NestedTurnstileControllerFSMRunner()
    case (.nestedTurnstile, .controllerFSMFullRuntime): NestedTurnstileFullRuntimeRunner()
    case (_, .cQHsm), (.nestedTurnstile, _):
        fatalError("\(machine.rawValue) has no \(implementation.rawValue) implementation; see MachineKind.implementations")
    }
}

/// Events between two drains of the full runtime's trace ring; the ring holds twice as many, so
/// no record is ever lost.
public let traceDrainInterval = 64
