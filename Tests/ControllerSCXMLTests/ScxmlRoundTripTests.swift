import ControllerFSM
import ControllerSCXML
import Testing
import Turnstile

/// `graph --format scxml` (`table.scxml()`) read back by the loader gives the same states (ids,
/// nesting, kinds), the same initial states and the same rows (source, event, guard label as
/// `cond`, targets), in the same order.
@Suite("SCXML export read back")
struct ScxmlRoundTripTests {
    enum Lock: Int, MachineSymbol {
        case running, doors, outer, outerShut, outerOpen, inner, innerShut, innerOpen, back, alarm, done
    }
    enum Input: Int, MachineSymbol { case outerOpened, outerClosed, innerOpened, innerClosed, fire, reset, retire }
    struct Counts { var alarms = 0 }

    static func table() throws -> TransitionTable<Lock, Input, Counts> {
        var lock = MachineDefinition<Lock, Input, Counts>(initial: .running)
        lock.state(.running) { s in
            s.initial(.doors)
            s.on(.fire, to: .alarm) { counts, _ in counts.alarms += 1 }
        }
        lock.parallel(.doors, in: .running) { _ in }
        lock.state(.outer, in: .doors) { s in s.initial(.outerShut) }
        lock.state(.outerShut, in: .outer) { s in s.on(.outerOpened, to: .outerOpen) }
        lock.state(.outerOpen, in: .outer) { s in
            s.on(.outerClosed, when: Guard("inner shut") { _ in true }, to: .outerShut)
            s.on(.outerClosed)
        }
        lock.state(.inner, in: .doors) { s in s.initial(.innerShut) }
        lock.state(.innerShut, in: .inner) { s in s.on(.innerOpened, to: .innerOpen) }
        lock.state(.innerOpen, in: .inner) { s in s.on(.innerClosed, to: .innerShut) }
        lock.history(.back, of: .running, deep: true, default: .doors)
        lock.state(.alarm) { s in
            s.on(.reset, to: .back)
            s.on(.retire, to: [.outerOpen, .innerOpen])
            s.always(when: Guard("alarms > 3") { $0.alarms > 3 }, to: .done)
        }
        lock.final(.done)
        return try lock.compile()
    }

    struct Row: Equatable, CustomStringConvertible {
        var source: String
        var event: String?
        var cond: String?
        var targets: [String]
        var description: String { "\(source) \(event ?? "-") [\(cond ?? "")] -> \(targets)" }
    }

    @Test("states, nesting, initial states and rows come back as written")
    func roundTrip() throws {
        let table = try Self.table()
        let document = try SCXMLRunner.document(text: table.scxml(name: "lock"), file: "lock.scxml")

        let states = Lock.allCases.map(\.name)
        #expect(document.states.map(\.id).sorted() == states.sorted())
        for state in Lock.allCases {
            let node = try #require(document.states.first { $0.id == state.name })
            #expect(node.parent.map { document.states[$0].id } == table.parent(of: state)?.name, "\(state)")
            #expect((node.kind == .parallel) == table.isParallelState(state), "\(state)")
            #expect((node.kind == .final) == table.isFinal(state), "\(state)")
            #expect(node.isHistory == table.isHistory(state), "\(state)")
        }
        #expect(document.initial.map { document.states[$0].id } == [table.initial.name])
        for info in table.initialInfo {
            let node = try #require(document.states.first { $0.id == info.superstate.name })
            #expect(node.initial.map { document.states[$0].id } == info.targets.map(\.name))
        }
        let history = try #require(document.states.first { $0.id == "back" })
        #expect(history.kind == .history(deep: true) && history.initial.map { document.states[$0].id } == ["doors"])

        let flags = table.scxmlGuardFlags
        #expect(flags.map(\.flag) == ["inner_shut", "alarms_3"])
        let written = table.rowInfo.map { row in
            Row(source: row.from.name, event: row.event?.name,
                cond: row.guardLabel.map { label in flags.first { $0.label == label }!.flag + " == 1" }, targets: row.targets.map(\.name))
        }
        let read = document.states.flatMap { node in
            node.transitions.map { transition in
                Row(source: node.id, event: transition.events.first?.description, cond: transition.cond,
                    targets: transition.targets.map { document.states[$0].id })
            }
        }
        #expect(read.sorted { $0.description < $1.description } == written.sorted { $0.description < $1.description })
        // Per state, the rows keep their order (the order they are tried in).
        for state in Lock.allCases {
            #expect(read.filter { $0.source == state.name } == written.filter { $0.source == state.name }, "\(state)")
        }
    }

    @Test("the lock (superstates, regions, history, guards) and the turnstile are read back and built as themselves, guards as flags")
    func everyMachineRoundTrips() throws {
        #expect(try SCXMLExportCheck.differences(Self.table(), name: "lock") == [])
        let differences = try SCXMLExportCheck.differences(TurnstileApplication.table, name: "turnstile")
        #expect(differences == [])
    }

    @Test("a guard's label becomes a name the integer datamodel reads, unique and never one of its words")
    func flagNames() throws {
        enum S: Int, MachineSymbol { case a, b }
        enum E: Int, MachineSymbol { case go }
        var definition = MachineDefinition<S, E, Int>(initial: .a)
        definition.state(.a) { s in
            for label in ["credit > 0", "credit >= 0", "2 coins", "true", "€ paid", "flashed"] {
                s.on(.go, when: Guard(label) { _ in false }, to: .b)
            }
            s.on(.go, to: .b)
        }
        definition.state(.b) { _ in }
        let table = try definition.compile(tolerating: [.unreachableRow])
        #expect(table.scxmlGuardFlags.map(\.flag) == ["credit_0", "credit_0_2", "guard_2_coins", "guard_true", "paid", "flashed"])
        #expect(try SCXMLExportCheck.differences(table, name: "guards") == [])
    }
}
