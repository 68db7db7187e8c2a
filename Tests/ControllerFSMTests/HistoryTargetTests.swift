import ControllerFSM
import Testing

/// A row whose target is a history, as SCXML says (section 3.10 and Appendix D's
/// `getTransitionDomain`, `getEffectiveTargetStates` and `enterStates`): the row's domain is
/// that of a row to what the history stands for when the row is taken — the states it
/// remembers, else its default's targets — and the default's action runs only when the
/// history's superstate is itself entered. Each machine is run alone (the nested path) and as
/// one region of a parallel state (the configuration path), which must do the same.
@Suite("Rows to a history: the domain from what it stands for, the default's action only when its superstate is entered")
struct HistoryTargetTests {
    /// `p` holds `a` (holding `a1`, `a2`) and `b`; `shallow` and `deep` are its histories.
    enum HS: Int, MachineSymbol, CaseIterable { case outside, p, a, a1, a2, b, shallow, deep }
    /// The same states, inside `region`, one of the two regions of `regions`; `other` holds
    /// `otherX` and `otherY`.
    enum WS: Int, MachineSymbol { case outside, p, a, a1, a2, b, shallow, deep, regions, region, other, otherX, otherY }
    enum HE: Int, MachineSymbol { case toShallow, toDeep, next, leave, enterP, reenter, fromP, flip }
    struct Journal { var lines: [String] = [] }

    static func definition<S: MachineSymbol>(
        startingIn start: HS, symbol: @escaping (HS) -> S, top: S?
    ) -> MachineDefinition<S, HE, Journal> {
        var definition = MachineDefinition<S, HE, Journal>(initial: symbol(start))
        func state(_ state: HS, in parent: HS?, _ body: (inout StateBlock<S, HE, Journal>) -> Void) {
            definition.state(symbol(state), in: parent.map(symbol) ?? top) { s in
                s.onEntry { c, _ in c.lines.append("+\(state.name)") }
                s.onExit { c, _ in c.lines.append("-\(state.name)") }
                body(&s)
            }
        }
        state(.outside, in: nil) { s in
            s.on(.toShallow, to: symbol(.shallow))
            s.on(.toDeep, to: symbol(.deep))
            s.on(.enterP, to: symbol(.p))
        }
        state(.p, in: nil) { s in
            s.initial(symbol(.a))
            s.on(.leave, to: symbol(.outside))
            // Written on p itself: local (p stays), and external (p left and entered again).
            s.on(.fromP, to: symbol(.shallow), kind: .local)
            s.on(.reenter, to: symbol(.shallow), kind: .external)
        }
        state(.a, in: .p) { s in s.initial(symbol(.a1)) }
        state(.a1, in: .a) { s in
            s.on(.toShallow, to: symbol(.shallow))
            s.on(.toDeep, to: symbol(.deep))
            s.on(.next, to: symbol(.a2))
        }
        state(.a2, in: .a) { s in s.on(.toShallow, to: symbol(.shallow)) }
        state(.b, in: .p) { _ in }
        definition.history(symbol(.shallow), of: symbol(.p), default: symbol(.b)) { c, _ in c.lines.append("shallow's default") }
        definition.history(symbol(.deep), of: symbol(.p), deep: true, default: symbol(.a2)) { c, _ in c.lines.append("deep's default") }
        return definition
    }

    /// The machine alone, and as one region beside `other`: both journals for each event.
    struct Pair {
        var alone: BareMachine<HS, HE, Journal>
        var inRegion: BareMachine<WS, HE, Journal>

        init(startingIn start: HS = .p) throws {
            alone = BareMachine(table: try HistoryTargetTests.definition(startingIn: start, symbol: { $0 }, top: nil).compile(), context: Journal())
            var wrapped = HistoryTargetTests.definition(startingIn: start, symbol: { WS(rawValue: $0.rawValue)! }, top: WS.region)
            wrapped.parallel(.regions) { _ in }
            wrapped.state(.region, in: .regions) { s in s.initial(WS(rawValue: start.rawValue)!) }
            wrapped.state(.other, in: .regions) { s in s.initial(.otherX) }
            wrapped.state(.otherX, in: .other) { s in s.on(.flip, to: .otherY) }
            wrapped.state(.otherY, in: .other) { s in s.on(.flip, to: .otherX) }
            inRegion = BareMachine(table: try wrapped.compile(), context: Journal())
            alone.start()
            inRegion.start()
            #expect(inRegion.table.isParallelState(.regions))
        }

        /// Sends `event` to both; returns the journal they agree on (a difference is an issue).
        mutating func send(_ event: HE, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
            alone.context.lines = []
            inRegion.context.lines = []
            alone.send(event, at: .zero)
            inRegion.send(event, at: .zero)
            #expect(alone.context.lines == inRegion.context.lines, "alone and in a region differ on \(event)", sourceLocation: sourceLocation)
            #expect(alone.state.rawValue == inRegion.activeStates.first?.rawValue, sourceLocation: sourceLocation)
            return alone.context.lines
        }
    }

    @Test("a row from inside p to its history, never recorded: only what the default needs is left, and the default's action does not run (p is not entered)")
    func emptyHistoryFromInside() throws {
        var pair = try Pair()
        #expect(pair.send(.toShallow) == ["-a1", "-a", "+b"])
        #expect(pair.alone.state == .b)
        #expect(pair.alone.rememberedStates == [nil, nil], "p was not left: nothing recorded")
    }

    @Test("a row from inside a to p's deep history remembering a2 leaves a1 only: the domain is a, not p")
    func rememberedHistoryFromInside() throws {
        var pair = try Pair()
        _ = pair.send(.next)
        #expect(pair.send(.leave) == ["-a2", "-a", "-p", "+outside"])
        #expect(pair.send(.toShallow) == ["-outside", "+p", "+a", "+a1"], "shallow: a, at its initial state")
        #expect(pair.send(.toDeep) == ["-a1", "+a2"])
        #expect(pair.alone.state == .a2)
    }

    @Test("a row from outside to a history never recorded enters p, runs the default's action after p's entry work, then enters the default")
    func emptyHistoryFromOutside() throws {
        var pair = try Pair(startingIn: .outside)
        #expect(pair.send(.toShallow) == ["-outside", "+p", "shallow's default", "+b"])
        _ = pair.send(.leave)
        #expect(pair.send(.toDeep) == ["-outside", "+p", "+b"], "the deep history remembers b: no default")
    }

    @Test("a local row on p to its own history leaves p entered: no default action; an external one leaves p, so the history records and enters what it just recorded")
    func rowsWrittenOnTheSuperstate() throws {
        var pair = try Pair()
        _ = pair.send(.next)
        #expect(pair.send(.fromP) == ["-a2", "-a", "+b"], "local: the domain is p; the history is empty, so its default")
        #expect(pair.send(.reenter) == ["-b", "-p", "+p", "+b"], "external: p left (recording b), then b restored")
        #expect(pair.alone.rememberedStates == [.b, .b])
    }

    @Test("the default's action of a history targeted from inside does not wait for p's next entry")
    func noPendingDefaultAction() throws {
        var pair = try Pair()
        #expect(pair.send(.toShallow) == ["-a1", "-a", "+b"])
        _ = pair.send(.leave)
        #expect(pair.send(.enterP) == ["-outside", "+p", "+a", "+a1"], "a row to p itself: p's initial state, no history action")
    }

    @Test("the other region is not touched by a row to a history inside its neighbour")
    func otherRegionStays() throws {
        var pair = try Pair()
        _ = pair.send(.flip)
        #expect(pair.inRegion.activeStates == [.a1, .otherY])
        _ = pair.send(.toShallow)
        #expect(pair.inRegion.activeStates == [.b, .otherY])
    }

    /// `p` holds a parallel state `par` with regions `left` (`x1`, `x2`) and `right` (`y1`,
    /// `y2`); `history` is p's deep history, defaulting to `x2`.
    enum PS: Int, MachineSymbol { case p, par, left, x1, x2, right, y1, y2, history }
    enum PE: Int, MachineSymbol { case go, flip }

    @Test("a row to a history whose default is in the same region as the source leaves the parallel state between them entered: the other region keeps its state")
    func parallelStateBetween() throws {
        var definition = MachineDefinition<PS, PE, Journal>(initial: .p)
        func state(_ state: PS, in parent: PS?, _ body: (inout StateBlock<PS, PE, Journal>) -> Void = { _ in }) {
            definition.state(state, in: parent) { s in
                s.onEntry { c, _ in c.lines.append("+\(state.name)") }
                s.onExit { c, _ in c.lines.append("-\(state.name)") }
                body(&s)
            }
        }
        state(.p, in: nil) { s in s.initial(.par) }
        definition.parallel(.par, in: .p) { s in
            s.onEntry { c, _ in c.lines.append("+par") }
            s.onExit { c, _ in c.lines.append("-par") }
        }
        state(.left, in: .par) { s in s.initial(.x1) }
        state(.x1, in: .left) { s in s.on(.go, to: .history) }
        state(.x2, in: .left)
        state(.right, in: .par) { s in s.initial(.y1) }
        state(.y1, in: .right) { s in s.on(.flip, to: .y2) }
        state(.y2, in: .right)
        definition.history(.history, of: .p, deep: true, default: .x2) { c, _ in c.lines.append("default") }
        var machine = BareMachine(table: try definition.compile(), context: Journal())
        machine.start()
        machine.send(.flip, at: .zero)
        #expect(machine.activeStates == [.x1, .y2])
        machine.context.lines = []
        machine.send(.go, at: .zero)
        #expect(machine.context.lines == ["-x1", "+x2"], "the domain is left: par, right and y2 stay; p is not entered, so no default action")
        #expect(machine.activeStates == [.x2, .y2])
    }
}
