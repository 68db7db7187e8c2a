import ControllerFSM
import Testing

/// `compile()` refuses the loops of sent events it can be certain of — rows without a guard,
/// work that declares what it sends (`sends:`), done events — naming the rows; what it cannot be
/// certain of (a guard, undeclared work) is left to the run-time bound.
@Suite("compile() refuses certain loops of sent events")
struct SendLoopCheckTests {
    enum S: Int, MachineSymbol { case a, b, x, f }
    enum E: Int, MachineSymbol { case go, again, ping, pong, done }
    struct C { var n = 0 }

    /// The problems of the definition `build` writes, the states it leaves out (`unused`) given
    /// empty blocks.
    func problems(_ build: (inout MachineDefinition<S, E, C>) -> Void, initial: S = .a, unused: [S] = [.b, .x, .f]) -> [DefinitionProblem] {
        var definition = MachineDefinition<S, E, C>(initial: initial)
        build(&definition)
        for state in unused { definition.state(state) { _ in } }
        do {
            _ = try definition.compile(tolerating: [.unreachableState])
            return []
        } catch {
            return error.problems
        }
    }

    @Test("an entry that declares it sends the event its state answers by re-entering itself")
    func entrySendsItsReentry() {
        let found = problems { d in
            d.state(.a) { s in
                s.onEntry(sends: [.again]) { _, fx in fx.send(.again) }
                s.on(.again, to: .a)
            }
        }
        #expect(found.count == 1 && found.first?.kind == .sendLoop, "\(found)")
        let message = found.first?.message ?? ""
        #expect(message.contains("a --again--> a (ControllerFSMTests/SendLoopCheckTests.swift:"), "\(message)")
        #expect(message.contains("repeat for ever") && message.contains("give one of these rows a guard"), "\(message)")
    }

    @Test("a targetless row that sends its own event twice: the queue grows")
    func rowDoublesItsEvent() {
        let found = problems { d in
            d.state(.a) { s in s.on(.go, sends: [.go, .go]) { _, fx in fx.send(.go); fx.send(.go) } }
        }
        #expect(found.first?.kind == .sendLoop && found.first?.message.contains("queue more events than they take") == true, "\(found)")
    }

    @Test("a done event that re-enters the superstate of its final state (no work at all: certain)")
    func doneReentersItsParent() {
        let found = problems({ d in
            d.state(.x, whenDone: .done) { s in
                s.initial(.f)
                s.on(.done, to: .x, kind: .external)
            }
            d.final(.f, in: .x)
        }, initial: .x, unused: [.a, .b])
        #expect(found.first?.kind == .sendLoop && found.first?.message.contains("f --done--> f") == true, "\(found)")
    }

    @Test("two states whose entries send the event that takes the machine to the other")
    func pingPong() {
        let found = problems({ d in
            d.state(.a) { s in
                s.onEntry(sends: [.ping]) { _, fx in fx.send(.ping) }
                s.on(.ping, to: .b)
            }
            d.state(.b) { s in
                s.onEntry(sends: [.pong]) { _, fx in fx.send(.pong) }
                s.on(.pong, to: .a)
            }
        }, unused: [.x, .f])
        #expect(found.count == 1, "one loop, reported once: \(found)")
        let message = found.first?.message ?? ""
        #expect(message.contains("--ping--> b") && message.contains("--pong--> a"), "\(message)")
    }

    @Test("what compile() cannot be certain of is not refused: a guard, undeclared work, a send that ends")
    func uncertainLoopsPass() {
        #expect(problems { d in
            d.state(.a) { s in
                s.onEntry(sends: [.again]) { _, fx in fx.send(.again) }
                s.on(.again, when: Guard("fewer than 3") { $0.n < 3 }, to: .a) { c, _ in c.n += 1 }
            }
        }.isEmpty)
        #expect(problems { d in
            d.state(.a) { s in
                s.onEntry { _, fx in fx.send(.again) }
                s.on(.again, to: .a)
            }
        }.isEmpty, "undeclared work is left to the run-time bound")
        #expect(problems({ d in
            d.state(.a) { s in
                s.onEntry(sends: [.go]) { _, fx in fx.send(.go) }
                s.on(.go, to: .b)
            }
            d.state(.b) { s in s.on(.go, to: .a) }
        }, unused: [.x, .f]).isEmpty, "a's entry sends go once; b answers it by going back, and nothing more is sent")
    }
}
