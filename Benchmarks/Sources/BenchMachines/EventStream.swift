import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Turnstile

/// A fixed pseudo-random sequence of events, generated once, before anything is measured. Every
/// implementation of a machine runs the same one.
public struct EventStream<Event: MachineSymbol>: Sendable {
    public let events: [Event]
    /// The same events as raw values, for the C baselines.
    public let rawValues: [UInt8]

    public var count: Int { events.count }

    init(count: Int, seed: UInt64, pick: (inout SplitMix64) -> Event) {
        var generator = SplitMix64(seed: seed)
        var events: [Event] = []
        events.reserveCapacity(count)
        for _ in 0..<count { events.append(pick(&generator)) }
        self.events = events
        rawValues = events.map { UInt8($0.rawValue) }
    }
}

public enum EventStreams {
    /// Events per stream, and so per benchmark sample.
    public static let length = 1_000_000

    /// Mostly coins and pushes, as at a real gate (the machine spends most of its time in
    /// service), with enough timeouts, faults, repairs and emergencies to take every row. A
    /// `timeout` stands for a timer expiry: events all carry one time, so the runtime's timers
    /// never fire by themselves.
    public static let turnstile = EventStream<TurnstileEvent>(count: length, seed: 0x7475_726E_7374_696C) { generator in
        switch generator.next() % 1000 {
        case 0..<420: .coin
        case 420..<840: .push
        case 840..<940: .timeout
        case 940..<970: .repair
        case 970..<972: .fault
        case 972..<974: .emergencyOn
        default: .emergencyOff
        }
    }

    /// Uniformly distributed events.
    public static let complex = EventStream<ComplexEvent>(count: length, seed: 0x636F_6D70_6C65_78) { generator in
        ComplexEvent(rawValue: Int(generator.next() % UInt64(ComplexRules.eventCount)))!
    }
}
