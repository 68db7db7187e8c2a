import ControllerFSM
import ControllerFSMSim
import ControllerTestSupport
import Testing

/// Random machines full of cycles — entries, exits, rows with and without targets that send
/// events, final states whose done events re-enter their parents, timers restarted with no
/// delay — on both dispatch paths (flat and nested; parallel regions). Whatever they do, every
/// `send` and `advance` returns, having dispatched no more than its bounds allow; it leaves no
/// timer due; and a step that reached a bound is counted and named by a cycle of real states.
@Suite("Unsettled steps: random machines with cycles", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct UnsettledStepPropertyTests {
    enum S: Int, MachineSymbol { case a, b, c, group, g1, gDone, par, r1, r1a, r1b, r2, r2a, r2b }
    enum E: Int, MachineSymbol { case e0, e1, e2, e3, done, tick }
    enum T: Int, MachineTimer { case t0, t1 }
    struct C {
        /// Rows guarded by it stop being taken once it runs out: some cycles end by themselves.
        var fuel = 0
    }

    /// What a piece of work does: the events it sends, and a timer it restarts (with no delay,
    /// or 1 ms).
    struct Work: Sendable {
        var sends: [E] = []
        var timer: (slot: Int, delay: Int64, event: E)?

        static func random(_ rng: inout SplitMix64) -> Work {
            var work = Work()
            for _ in 0..<Int(rng.next(below: 3)) { work.sends.append(E.allCases[Int(rng.next(below: UInt64(E.allCases.count)))]) }
            if rng.next(below: 4) == 0 {
                work.timer = (Int(rng.next(below: 2)), rng.next(below: 2) == 0 ? 0 : 1_000_000, rng.next(below: 2) == 0 ? .tick : .e0)
            }
            return work
        }

        var action: MachineAction<S, E, C> {
            let work = self
            return { c, fx in
                c.fuel -= 1
                for event in work.sends { fx.send(event) }
                if let timer = work.timer { fx.startTimer(T.allCases[timer.slot], afterNanoseconds: timer.delay, sending: timer.event) }
            }
        }
    }

    static func randomMachine(seed: UInt64, parallel: Bool) throws -> StateMachine<S, E, C> {
        var rng = SplitMix64(seed: seed)
        var d = MachineDefinition<S, E, C>(initial: .a)
        let leaves: [S] = parallel ? [.a, .b, .c, .g1, .r1a, .r1b, .r2a, .r2b] : [.a, .b, .c, .g1]
        let targets: [S] = leaves + [.group] + (parallel ? [.par] : [])
        func block(_ s: inout StateBlock<S, E, C>) {
            if rng.next(below: 2) == 0 { s.onEntry(Work.random(&rng).action) }
            if rng.next(below: 3) == 0 { s.onExit(Work.random(&rng).action) }
            for event in E.allCases where rng.next(below: 2) == 0 {
                let fueled = rng.next(below: 3) == 0 ? Guard<C>("fuel left") { $0.fuel > 0 } : nil
                let target: S? = rng.next(below: 3) == 0 ? nil : targets[Int(rng.next(below: UInt64(targets.count)))]
                s.on(event, when: fueled, to: target, kind: rng.next(below: 2) == 0 ? .local : .external, Work.random(&rng).action)
            }
            switch rng.next(below: 8) {
            case 0: s.always(when: Guard("fuel left") { $0.fuel > 0 }, to: targets[Int(rng.next(below: UInt64(targets.count)))], Work.random(&rng).action)
            case 1: s.always(when: Guard("spinning") { _ in true }, Work.random(&rng).action)
            default: break
            }
        }
        d.state(.a) { block(&$0) }
        d.state(.b) { block(&$0) }
        d.state(.c) { block(&$0) }
        d.state(.group, whenDone: .done) { s in
            s.initial(.g1)
            block(&s)
        }
        d.state(.g1, in: .group) { s in
            block(&s)
            s.on(.e3, to: .gDone)
        }
        d.final(.gDone, in: .group)
        if parallel {
            d.parallel(.par) { block(&$0) }
            d.state(.r1, in: .par) { s in s.initial(.r1a) }
            d.state(.r1a, in: .r1) { block(&$0) }
            d.state(.r1b, in: .r1) { block(&$0) }
            d.state(.r2, in: .par) { s in s.initial(.r2a) }
            d.state(.r2a, in: .r2) { block(&$0) }
            d.state(.r2b, in: .r2) { block(&$0) }
        } else {
            // Present in the enum, outside the machine's reach.
            for state: S in [.par, .r1, .r1a, .r1b, .r2, .r2a, .r2b] { d.state(state) { _ in } }
        }
        let table = try d.compile(tolerating: [.unreachableState, .unreachableRow, .duplicateRow])
        return StateMachine(table: table, context: C(fuel: Int(rng.next(below: 40))))
    }

    /// The most a step may dispatch: the event, then at most the internal bound's events.
    static let perStep = 1 + MachineLimits.maximumInternalEvents

    static func check(seed: UInt64, parallel: Bool) throws {
        var machine: StateMachine<S, E, C>
        do {
            machine = try randomMachine(seed: seed, parallel: parallel)
        } catch {
            return  // a definition compile() refuses (an eventless loop, say) runs nothing
        }
        var rng = SplitMix64(seed: seed ^ 0x5eed)
        var now = MachineInstant.zero
        var reported = 0
        machine.start(at: now)
        for _ in 0..<60 {
            let gapMilliseconds = Int64(rng.next(below: 3))
            now = now + .milliseconds(gapMilliseconds)
            let before = machine.statistics.dispatched
            machine.send(E.allCases[Int(rng.next(below: UInt64(E.allCases.count)))], at: now)
            machine.advance(to: now)
            // Timers fire at most at each millisecond since the last call (delays are 0 or
            // 1 ms) plus the instant of the call, each instant's expiries bounded, each
            // expiry one step.
            let instants = Int(gapMilliseconds) + 2
            let bound = perStep * (1 + MachineLimits.maximumTimerExpiriesPerInstant * instants)
            let dispatched = machine.statistics.dispatched - before
            #expect(dispatched <= bound, "seed \(seed) parallel \(parallel): \(dispatched) dispatches in one call")
            if let next = machine.nextDeadline {
                #expect(next > now, "seed \(seed) parallel \(parallel): a timer left due at \(now)")
            }
            let count = machine.statistics.unsettledSteps
            if count != reported {
                reported = count
                let step = try #require(machine.lastUnsettledStep, "seed \(seed): counted but not reported")
                #expect(!step.cycle.isEmpty, "seed \(seed): \(step)")
                #expect(step.description.contains("MachineLimits."), "seed \(seed): \(step)")
                if step.bound == .timerExpiriesAtOneInstant { #expect(step.stoppedTimers > 0, "seed \(seed): \(step)") }
            }
        }
    }

    @Test("flat and nested machines", arguments: 0..<PropertyCases.count(100))
    func nested(seed: Int) throws { try Self.check(seed: UInt64(seed), parallel: false) }

    @Test("machines with parallel regions", arguments: 0..<PropertyCases.count(100))
    func regions(seed: Int) throws { try Self.check(seed: UInt64(seed), parallel: true) }

    @Test("the random machines do reach every bound: the property is not vacuous")
    func boundsAreReached() throws {
        let bounds: Set<UInt8> = [
            UnsettledStep<S, E>.Bound.internalEvents.rawValue, UnsettledStep<S, E>.Bound.timerExpiriesAtOneInstant.rawValue,
            UnsettledStep<S, E>.Bound.eventlessMicrosteps.rawValue,
        ]
        var seen: Set<UInt8> = []
        // The seeds the property runs, until every bound is seen (each machine that reaches one
        // runs to it: under emulation the whole hundred took a minute once the rest was done).
        for seed in 0..<100 where !seen.isSuperset(of: bounds) {
            for parallel in [false, true] {
                guard var machine = try? Self.randomMachine(seed: UInt64(seed), parallel: parallel) else { continue }
                machine.start(at: .zero)
                var now = MachineInstant.zero
                for event in E.allCases + E.allCases {
                    now = now + .milliseconds(1)
                    machine.send(event, at: now)
                    machine.advance(to: now)
                }
                if let step = machine.lastUnsettledStep { seen.insert(step.bound.rawValue) }
            }
        }
        #expect(seen.isSuperset(of: bounds), "bounds reached: \(seen.sorted()) of \(bounds.sorted())")
    }
}
