import ControllerFSM
import ControllerFSMSim
import Testing

/// Timers against a model that keeps every armed deadline and scans them all: random starts,
/// restarts, cancels and waits on three slots, with deadlines that tie, so the shortcuts in
/// `Effects` (no rescan unless the earliest deadline moves later) are checked wherever they
/// could go wrong.
@Suite("Timers against a scanning model")
struct TimerModelTests {
    enum S: Int, MachineSymbol { case only }
    enum E: Int, MachineSymbol { case start0, start1, start2, cancel0, cancel1, cancel2, expire0, expire1, expire2 }
    enum T: Int, MachineTimer { case zero, one, two }

    struct Log {
        /// The delay the next start uses (set before sending a start event).
        var delay: Int64 = 0
        var fired: [(slot: Int, at: Int64)] = []
    }

    static let slots = 3
    static let operations = 400
    static let seeds: [UInt64] = Array(1...60)

    static func machine() throws -> StateMachine<S, E, Log> {
        var definition = MachineDefinition<S, E, Log>(initial: .only)
        definition.state(.only) { s in
            for slot in 0..<slots {
                let expiry = E(rawValue: E.expire0.rawValue + slot)!
                s.on(E(rawValue: E.start0.rawValue + slot)!) { log, fx in
                    fx.startTimer(T(rawValue: slot)!, afterNanoseconds: log.delay, sending: expiry)
                }
                s.on(E(rawValue: E.cancel0.rawValue + slot)!) { _, fx in fx.cancelTimer(T(rawValue: slot)!) }
                s.on(expiry) { log, fx in log.fired.append((slot, fx.now.nanoseconds)) }
            }
        }
        var machine = StateMachine(table: try definition.compile(), context: Log())
        machine.start(at: .zero)
        return machine
    }

    @Test("next deadline and expiries match the model after every operation", arguments: seeds)
    func matchesModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var machine = try Self.machine()
        var armed: [Int64?] = Array(repeating: nil, count: Self.slots)
        var expected: [(slot: Int, at: Int64)] = []
        var now: Int64 = 0
        // Fires what is due by `time` in the machine's order: earliest deadline, then lowest slot.
        func fireModel(upTo time: Int64) {
            while let next = (0..<Self.slots).filter({ armed[$0].map { $0 <= time } ?? false })
                .min(by: { (armed[$0]!, $0) < (armed[$1]!, $1) }) {
                expected.append((next, armed[next]!))
                armed[next] = nil
            }
        }
        for step in 0..<Self.operations {
            let slot = Int(random.next() % UInt64(Self.slots))
            switch random.next() % 4 {
            case 0, 1:
                // Small delays so deadlines tie often.
                let delay = Int64(random.next() % 6)
                fireModel(upTo: now)
                armed[slot] = now + delay
                machine.context.delay = delay
                machine.send(E(rawValue: E.start0.rawValue + slot)!, at: MachineInstant(nanoseconds: now))
            case 2:
                fireModel(upTo: now)
                armed[slot] = nil
                machine.send(E(rawValue: E.cancel0.rawValue + slot)!, at: MachineInstant(nanoseconds: now))
            default:
                now += Int64(random.next() % 5)
                fireModel(upTo: now)
                machine.advance(to: MachineInstant(nanoseconds: now))
            }
            let modelNext = armed.compactMap { $0 }.min()
            #expect(machine.nextDeadline?.nanoseconds == modelNext, "seed \(seed), step \(step): next deadline")
            #expect(machine.context.fired.map(\.slot) == expected.map(\.slot), "seed \(seed), step \(step): expiries")
            #expect(machine.context.fired.map(\.at) == expected.map(\.at), "seed \(seed), step \(step): expiry times")
            if machine.context.fired.count != expected.count || machine.nextDeadline?.nanoseconds != modelNext { return }
        }
    }
}
