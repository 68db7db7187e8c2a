import ControllerFSM
import ControllerTestSupport
import Testing

/// Every loop that runs a machine to completion is bounded (MachineLimits): a step that does not
/// settle — raised events that keep coming, timers that keep expiring at one instant, eventless
/// rows that keep being taken — is ended at its bound, counted, and named by the cycle it
/// repeated; the machine then takes events as before.
@Suite("Unsettled steps", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct UnsettledStepTests {
    enum S: Int, MachineSymbol { case a, b, x, f, region1, r1a, r1b, region2, r2a, r2b, p }
    enum E: Int, MachineSymbol { case go, again, ping, pong, tick, done, other }
    enum T: Int, MachineTimer { case t }
    struct C {
        var entries = 0
        var ticks = 0
    }

    func started(_ build: (inout MachineDefinition<S, E, C>) -> Void, initial: S = .a) throws -> StateMachine<S, E, C> {
        var definition = MachineDefinition<S, E, C>(initial: initial)
        build(&definition)
        var machine = StateMachine(table: try definition.compile(tolerating: [.unreachableState]), context: C())
        machine.start(at: .zero)
        return machine
    }

    /// States this test does not use, as empty blocks.
    func rest(_ d: inout MachineDefinition<S, E, C>, except used: Set<S>) {
        for state in S.allCases where !used.contains(state) && ![.r1a, .r1b, .r2a, .r2b, .region1, .region2, .p].contains(state) {
            d.state(state) { _ in }
        }
        if !used.contains(.p) {
            d.state(.p) { s in s.initial(.region1) }
            d.state(.region1, in: .p) { s in s.initial(.r1a) }
            d.state(.r1a, in: .region1) { _ in }
            d.state(.r1b, in: .region1) { _ in }
            d.state(.region2, in: .p) { s in s.initial(.r2a) }
            d.state(.r2a, in: .region2) { _ in }
            d.state(.r2b, in: .region2) { _ in }
        }
    }

    @Test("an entry that raises the event re-entering its state ends at the bound, naming the cycle")
    func entryRaisesItsOwnReentry() throws {
        var machine = try started { d in
            d.state(.a) { s in
                s.onEntry { c, fx in c.entries += 1; fx.send(.again) }
                s.on(.again, to: .a)
            }
            rest(&d, except: [.a])
        }
        #expect(machine.statistics.unsettledSteps == 1, "the start was the step that did not settle")
        let step = try #require(machine.lastUnsettledStep)
        #expect(step.bound == .internalEvents)
        #expect(step.cycle == [.init(from: .a, event: .again, to: .a)])
        #expect(step.cycleRepeats)
        #expect(step.discardedEvents == 1, "the event the last entry raised")
        #expect(machine.context.entries == MachineLimits.maximumInternalEvents + 1)
        #expect(step.description.contains("a --again--> a"), "\(step)")
        #expect(step.description.contains("MachineLimits.maximumInternalEvents"), "\(step)")
        // It goes on: the next event is one more such step, reported again (as the doc
        // comment's example shows it).
        let now = MachineInstant.zero
        var cycles: [[UnsettledStep<S, E>.Step]] = []
        do {
            try machine.sendToCompletion(.again, at: now)
        } catch {
            cycles.append(error.cycle)
        }
        #expect(cycles == [[.init(from: .a, event: .again, to: .a)]])
        #expect(machine.statistics.unsettledSteps == 2)
    }

    @Test("a targetless row raising its own event twice fills the queue, and the step still ends, saying both")
    func targetlessRowDoublesItsEvent() throws {
        var machine = try started { d in
            d.state(.a) { s in s.on(.go) { _, fx in fx.send(.go); fx.send(.go) } }
            rest(&d, except: [.a])
        }
        machine.send(.go, at: .zero)
        #expect(machine.statistics.unsettledSteps == 1)
        #expect(machine.statistics.droppedSends > 0, "the queue filled: every lost send is counted")
        let step = try #require(machine.lastUnsettledStep)
        #expect(step.cycle == [.init(from: .a, event: .go, to: .a)])
        #expect(step.discardedEvents == StateMachine<S, E, C>.defaultQueueCapacity, "the full queue, discarded")
        #expect(machine.statistics.discardedEvents == step.discardedEvents)
    }

    @Test("a final state whose done event re-enters its superstate ends at the bound")
    func doneEventReentersItsParent() throws {
        let machine = try started({ d in
            d.state(.x, whenDone: .done) { s in
                s.initial(.f)
                // A guard compile() cannot see through: certain, this loop would be refused.
                s.on(.done, when: Guard("always") { _ in true }, to: .x, kind: .external)
            }
            d.final(.f, in: .x)
            rest(&d, except: [.x, .f])
        }, initial: .x)
        let step = try #require(machine.lastUnsettledStep)
        #expect(step.bound == .internalEvents)
        #expect(step.cycle == [.init(from: .f, event: .done, to: .f)])
        #expect(step.statesInCycle == [.f] && step.eventsInCycle == [.done])
    }

    @Test("two rows raising each other's events end at the bound with a cycle of two")
    func pingPong() throws {
        var machine = try started { d in
            d.state(.a) { s in
                s.on(.ping, to: .b) { _, fx in fx.send(.pong) }
            }
            d.state(.b) { s in
                s.on(.pong, to: .a) { _, fx in fx.send(.ping) }
            }
            rest(&d, except: [.a, .b])
        }
        do {
            try machine.sendToCompletion(.ping, at: ms(5))
            Issue.record("the step settled")
        } catch {
            #expect(error.bound == .internalEvents)
            #expect(error.time == ms(5))
            #expect(Set(error.cycle.map(\.description)) == ["a --ping--> b", "b --pong--> a"])
            #expect(error.cycle.count == 2)
        }
    }

    @Test("a timer restarted with no delay by its own expiry stops at the bound; time moves on")
    func zeroDelayTimer() throws {
        var machine = try started { d in
            d.state(.a) { s in
                s.onEntry { c, fx in c.entries += 1; fx.startTimer(T.t, after: .zero, sending: .tick) }
                s.on(.tick, to: .a) { c, _ in c.ticks += 1 }
            }
            rest(&d, except: [.a])
        }
        // The start armed it at 0 without firing it: `advance` is what runs timers.
        #expect(throws: UnsettledStep<S, E>.self) { try machine.advanceToCompletion(to: ms(1)) }
        let step = try #require(machine.lastUnsettledStep)
        #expect(step.bound == .timerExpiriesAtOneInstant)
        #expect(step.time == .zero, "the instant time stood still at")
        #expect(step.stoppedTimers == 1)
        #expect(step.cycle == [.init(from: .a, event: .tick, to: .a, isTimerExpiry: true)])
        #expect(machine.context.ticks == MachineLimits.maximumTimerExpiriesPerInstant)
        #expect(machine.nextDeadline == nil, "the runaway timer is stopped, not left due")
        #expect(!machine.isRunning(T.t))
        machine.advance(to: ms(2))
        #expect(machine.statistics.unsettledSteps == 1, "nothing more is due")
    }

    @Test("a timer restarted with no delay by a targetless row, through a raised event, stops too")
    func zeroDelayTimerThroughARaisedEvent() throws {
        var machine = try started { d in
            d.state(.a) { s in
                s.onEntry { _, fx in fx.startTimer(T.t, after: .seconds(1), sending: .tick) }
                s.on(.tick) { _, fx in fx.send(.other) }
                s.on(.other) { c, fx in c.ticks += 1; fx.startTimer(T.t, after: .zero, sending: .tick) }
            }
            rest(&d, except: [.a])
        }
        machine.advance(to: MachineInstant.zero + .seconds(3))
        let step = try #require(machine.lastUnsettledStep)
        #expect(step.bound == .timerExpiriesAtOneInstant)
        #expect(step.time == MachineInstant.zero + .seconds(1))
        #expect(Set(step.eventsInCycle) == [.tick, .other])
        #expect(machine.nextDeadline == nil)
    }

    @Test("what settles is never reported: a long chain under the bound, a periodic timer over a long advance")
    func settledStepsAreNotReported() throws {
        var machine = try started { d in
            d.state(.a) { s in
                s.onEntry { _, fx in fx.startTimer(T.t, after: .milliseconds(1), sending: .tick) }
                s.on(.tick) { c, fx in c.ticks += 1; fx.startTimer(T.t, after: .milliseconds(1), sending: .tick) }
                s.on(.go) { c, fx in
                    c.entries += 1
                    if c.entries < MachineLimits.maximumInternalEvents { fx.send(.go) }
                }
            }
            rest(&d, except: [.a])
        }
        machine.send(.go, at: .zero)
        #expect(machine.context.entries == MachineLimits.maximumInternalEvents, "the external event and every raised one")
        machine.advance(to: MachineInstant.zero + .seconds(10))
        #expect(machine.context.ticks == 10_000, "time moved at every expiry: no bound applies")
        #expect(machine.statistics.unsettledSteps == 0)
        #expect(machine.lastUnsettledStep == nil)
    }

    @Test("eventless rows that never settle are reported as such, on the flat path and with regions")
    func eventlessRunaway() throws {
        for parallel in [false, true] {
            var machine = try started({ d in
                if parallel {
                    d.parallel(.p) { _ in }
                    d.state(.region1, in: .p) { s in s.initial(.r1a) }
                    d.state(.r1a, in: .region1) { s in
                        s.always(when: Guard("always") { _ in true }, to: .r1b)
                        s.on(.go) { _, _ in }
                    }
                    d.state(.r1b, in: .region1) { s in
                        s.always(when: Guard("always") { _ in true }, to: .r1a)
                        s.on(.go) { _, _ in }
                    }
                    d.state(.region2, in: .p) { s in s.initial(.r2a) }
                    d.state(.r2a, in: .region2) { _ in }
                    d.state(.r2b, in: .region2) { _ in }
                } else {
                    d.state(.a) { s in
                        s.always(when: Guard("always") { _ in true }, to: .b)
                        s.on(.go) { _, _ in }
                    }
                    d.state(.b) { s in
                        s.always(when: Guard("always") { _ in true }, to: .a)
                        s.on(.go) { _, _ in }
                    }
                }
                rest(&d, except: parallel ? [.p] : [.a, .b])
            }, initial: parallel ? .p : .a)
            let step = try #require(machine.lastUnsettledStep, "parallel: \(parallel)")
            #expect(step.bound == .eventlessMicrosteps)
            #expect(step.cycle.count == 2 && step.cycle.allSatisfy { $0.event == nil })
            #expect(machine.statistics.microstepLimitHits == 1)
            machine.send(.go, at: .zero)
            #expect(machine.statistics.unsettledSteps == 2, "each event that runs them again is one more")
        }
    }

    @Test("a raised-event cycle in a parallel region ends at the bound too")
    func regionCycle() throws {
        let machine = try started({ d in
            d.parallel(.p) { _ in }
            d.state(.region1, in: .p) { s in s.initial(.r1a) }
            d.state(.r1a, in: .region1) { s in
                s.onEntry { _, fx in fx.send(.again) }
                s.on(.again, to: .r1a, kind: .external)
            }
            d.state(.r1b, in: .region1) { _ in }
            d.state(.region2, in: .p) { s in s.initial(.r2a) }
            d.state(.r2a, in: .region2) { _ in }
            d.state(.r2b, in: .region2) { _ in }
            rest(&d, except: [.p])
        }, initial: .p)
        let step = try #require(machine.lastUnsettledStep)
        #expect(step.bound == .internalEvents)
        #expect(step.eventsInCycle == [.again])
    }
}
