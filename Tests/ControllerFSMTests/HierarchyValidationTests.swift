import ControllerFSM
import Testing

/// `compile()` refuses a nesting it cannot run, naming the state, the line and the fix.
@Suite("Superstates: what compile() refuses")
struct HierarchyValidationTests {
    enum S: Int, MachineSymbol { case a, b, c, d, h }
    enum E: Int, MachineSymbol { case go, back }
    typealias Definition = MachineDefinition<S, E, Int>

    func problems(_ build: (inout Definition) -> Void) -> [DefinitionProblem] {
        var definition = Definition(initial: .a)
        build(&definition)
        do {
            _ = try definition.compile()
            return []
        } catch {
            return error.problems
        }
    }

    /// a (initial b) { b, c }, d, h = history of a: valid.
    func valid(_ definition: inout Definition) {
        definition.state(.a) { s in s.initial(.b); s.on(.go, to: .d) }
        definition.state(.b, in: .a) { s in s.on(.go, to: .c) }
        definition.state(.c, in: .a) { _ in }
        definition.state(.d) { s in s.on(.back, to: .h) }
        definition.history(.h, of: .a, default: .c)
    }

    @Test("the valid nesting compiles")
    func validCompiles() {
        #expect(problems(valid).isEmpty)
    }

    @Test("a chain of superstates that loops")
    func cycle() {
        let found = problems { d in
            d.state(.a, in: .c) { s in s.initial(.b) }
            d.state(.b, in: .a) { _ in }
            d.state(.c, in: .b) { s in s.initial(.a) }
            d.state(.d) { _ in }
            d.state(.h) { _ in }
        }
        #expect(found.contains { $0.kind == .parentCycle && $0.message.contains("HierarchyValidationTests.swift") }, "\(found)")
    }

    @Test("a superstate without an initial state, or with only guarded ones")
    func missingInitial() {
        let none = problems { d in
            d.state(.a) { s in s.on(.go, to: .d) }
            d.state(.b, in: .a) { s in s.on(.go, to: .c) }
            d.state(.c, in: .a) { _ in }
            d.state(.d) { s in s.on(.back, to: .h) }
            d.history(.h, of: .a, default: .c)
        }
        #expect(none.contains { $0.kind == .missingInitial && $0.state == "a" && $0.message.contains("s.initial") }, "\(none)")
        let guarded = problems { d in
            d.state(.a) { s in s.initial(.b, when: Guard("never") { _ in false }) }
            d.state(.b, in: .a) { s in s.on(.go, to: .c) }
            d.state(.c, in: .a) { s in s.on(.go, to: .d) }
            d.state(.d) { s in s.on(.back, to: .h) }
            d.history(.h, of: .a, default: .c)
        }
        #expect(guarded.contains { $0.kind == .missingInitial && $0.message.contains("unguarded") }, "\(guarded)")
    }

    @Test("an initial state outside its superstate, or on a state without children")
    func badInitial() {
        let outside = problems { d in
            d.state(.a) { s in s.initial(.d) }
            d.state(.b, in: .a) { s in s.on(.go, to: .c) }
            d.state(.c, in: .a) { s in s.on(.go, to: .d) }
            d.state(.d) { s in s.initial(.a); s.on(.back, to: .h) }
            d.history(.h, of: .a, default: .c)
        }
        #expect(outside.filter { $0.kind == .badInitial }.count == 2, "\(outside)")
    }

    @Test("a history of a state without children, or with its default outside")
    func badHistory() {
        let found = problems { d in
            d.state(.a) { s in s.initial(.b) }
            d.state(.b, in: .a) { s in s.on(.go, to: .c) }
            d.state(.c, in: .a) { s in s.on(.go, to: .d) }
            d.state(.d) { s in s.on(.back, to: .h) }
            d.history(.h, of: .a, default: .d)
        }
        #expect(found.contains { $0.kind == .badHistory && $0.message.contains("not a state inside a") }, "\(found)")
        let childless = problems { d in
            d.state(.a) { s in s.initial(.b) }
            d.state(.b, in: .a) { s in s.on(.go, to: .c) }
            d.state(.c, in: .a) { s in s.on(.go, to: .d) }
            d.state(.d) { s in s.on(.back, to: .h) }
            d.history(.h, of: .d, default: .a)
        }
        #expect(childless.contains { $0.kind == .badHistory && $0.message.contains("has no states inside it") }, "\(childless)")
    }

    @Test("a history with a block, a history as the initial state")
    func historyMisused() {
        let block = problems { d in
            valid(&d)
            d.state(.h) { _ in }
        }
        #expect(block.contains { $0.kind == .duplicateState && $0.message.contains("is a history") }, "\(block)")
        var definition = Definition(initial: .h)
        valid(&definition)
        #expect(throws: MachineDefinitionError.self) { try definition.compile() }
    }

    @Test("a state inside a superstate nothing enters is unreachable")
    func unreachableInside() {
        let found = problems { d in
            d.state(.a) { s in s.initial(.b) }
            d.state(.b, in: .a) { _ in }
            d.state(.c, in: .a) { _ in }
            d.state(.d) { _ in }
            d.history(.h, of: .a, default: .b)
        }
        #expect(Set(found.filter { $0.kind == .unreachableState }.compactMap(\.state)) == ["c", "d", "h"], "\(found)")
    }

    @Test("nesting deeper than MachineLimits.maximumDepth")
    func tooDeep() {
        enum Deep: Int, MachineSymbol { case s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 }
        var definition = MachineDefinition<Deep, E, Int>(initial: .s0)
        let all = Array(Deep.allCases)
        for (position, state) in all.enumerated() {
            definition.state(state, in: position == 0 ? nil : all[position - 1]) { s in
                if position + 1 < all.count { s.initial(all[position + 1]) }
            }
        }
        #expect(MachineLimits.maximumDepth < all.count - 1)
        #expect(throws: MachineDefinitionError.self) { try definition.compile() }
        do {
            _ = try definition.compile()
        } catch {
            #expect(error.problems.contains { $0.kind == .tooDeep && $0.message.contains("MachineLimits.maximumDepth") }, "\(error)")
        }
    }

    /// A state of many: its numbers are its cases (`StateBits` holds a configuration of them).
    struct Many: MachineSymbol, Hashable {
        let rawValue: Int
        init?(rawValue: Int) { self.rawValue = rawValue }
        static var allCases: [Many] { (0...MachineLimits.maximumStates).map { Many(rawValue: $0)! } }
        var name: String { "s\(rawValue)" }
    }

    @Test("more states than MachineLimits.maximumStates: refused, naming the bound; one fewer compiles")
    func tooManyStates() {
        var definition = MachineDefinition<Many, E, Int>(initial: Many(rawValue: 0)!)
        for state in Many.allCases {
            definition.state(state) { s in
                if state.rawValue + 1 < Many.allCases.count { s.on(.go, to: Many(rawValue: state.rawValue + 1)!) }
            }
        }
        do {
            _ = try definition.compile()
            Issue.record("\(Many.allCases.count) states compiled")
        } catch {
            #expect(error.problems.map(\.kind) == [.tooManyStates], "\(error)")
            #expect(error.problems.first?.message.contains("MachineLimits.maximumStates") == true)
        }
        #expect(StateBits.capacity == MachineLimits.maximumStates)
        var bits = StateBits([0, 63, 64, MachineLimits.maximumStates - 1])
        #expect(bits.indices == [0, 63, 64, MachineLimits.maximumStates - 1] && !bits.contains(1) && !bits.contains(MachineLimits.maximumStates))
        bits = StateBits()
        #expect(bits.isEmpty && bits == StateBits([]))
    }
}
