import ControllerFSM
@testable import ControllerHost
import Testing
import Turnstile

/// The inputs' side of the controller alone, with no chip and no machine: which event each
/// edge, command and deadline is (the turnstile's declaration: `coin` a pulse, `push` a pulse
/// that is a jam when held, `emergency` a condition).
@Suite("Input bindings: edges, commands and held lines to events, alone")
struct InputBindingsTests {
    typealias App = TurnstileApplication
    static let coin = 0, push = 1, emergency = 3

    /// Every declared input on its own line, in declaration order, debounce 0.
    static func bindings() -> InputBindings<App> {
        InputBindings(settings: BoardFile.defaultSim.settings, roles: [0, 1, 2, 3], periods: Array(repeating: .zero, count: 4), settled: false)
    }

    static func edge(_ line: Int, active: Bool, at nanoseconds: Int64, sequence: UInt64 = 0) -> EdgeEvent {
        EdgeEvent(lineIndex: line, kind: EdgeKind(becameActive: active), timestamp: MachineInstant(nanoseconds: nanoseconds), sequence: sequence)
    }

    @Test("a gap in the edges' sequence numbers is counted as lost edges, from the request's first number on")
    func lostEdges() {
        var inputs = Self.bindings()
        for sequence: UInt64 in [2, 3, 7] { inputs.feed(Self.edge(Self.coin, active: true, at: 1, sequence: sequence)) }
        #expect(inputs.lostEdges == 5, "0 and 1 before the first read, then 4, 5 and 6")
        inputs.reattach(settled: false)
        inputs.feed(Self.edge(Self.coin, active: true, at: 2, sequence: 0))
        #expect(inputs.lostEdges == 5, "a new request numbers its edges from 0 again")
    }

    @Test("on a new request, a line is retaken only where it differs from the level last taken")
    func retake() {
        var inputs = Self.bindings()
        let unchanged = inputs.retake(line: Self.coin, active: false)
        let changed = inputs.retake(line: Self.coin, active: true)
        let again = inputs.retake(line: Self.coin, active: true)
        #expect(!unchanged, "inactive, as last taken")
        #expect(changed, "changed while the chip was gone")
        #expect(inputs.debouncer.level(ofLine: Self.coin))
        #expect(!again)
    }

    @Test("a pulse's active edge is its event; its inactive edge is none")
    func pulse() {
        var inputs = Self.bindings()
        var context = App.makeContext(BoardFile.defaultSim.settings)
        #expect(inputs.event(for: Self.edge(Self.coin, active: true, at: 1), role: Self.coin, context: &context)?.event == .coin)
        #expect(inputs.event(for: Self.edge(Self.coin, active: false, at: 2), role: Self.coin, context: &context) == nil)
    }

    @Test("a push held past jam_timeout is a fault once, raised again only where the declaration says, and ends on release")
    func heldTooLong() throws {
        var inputs = Self.bindings()
        var context = App.makeContext(BoardFile.defaultSim.settings)
        let jam = BoardFile.defaultSim.settings.jamTimeout.nanosecondCount
        _ = inputs.event(for: Self.edge(Self.push, active: true, at: 1_000), role: Self.push, context: &context)
        let pressed = inputs.nextHeldDeadline
        #expect(pressed == (1_000 + jam, Self.push))
        let deadline = inputs.nextDeadline
        #expect(deadline == 1_000 + jam)
        let fault = inputs.heldPastLimit(Self.push)
        #expect(fault == .fault)
        let afterFault = inputs.nextHeldDeadline
        #expect(afterFault.time == .max, "raised once by its deadline")
        let inService = inputs.stillHeldTooLong(Self.push) { $0(App.table.configuration(at: .locked), context) }, outOfService = inputs.stillHeldTooLong(Self.push) { $0(App.table.configuration(at: .broken), context) }
        #expect(inService == .fault, "in service, a stuck push faults again")
        #expect(outOfService == nil, "out of service, it does not")
        _ = inputs.event(for: Self.edge(Self.push, active: false, at: 2 * jam), role: Self.push, context: &context)
        let released = inputs.stillHeldTooLong(Self.push) { $0(App.table.configuration(at: .locked), context) }, none = inputs.heldPastLimit(-1)
        #expect(released == nil, "released, it is no longer stuck")
        #expect(none == nil, "no input's deadline is none")
    }

    @Test("a condition is on while its line or a command holds it: a command adds to the line, never undoes it")
    func condition() {
        var inputs = Self.bindings()
        var context = App.makeContext(BoardFile.defaultSim.settings)
        #expect(inputs.event(for: Self.edge(Self.emergency, active: true, at: 1), role: Self.emergency, context: &context)?.event == .emergencyOn)
        #expect(inputs.conditionsHeldByLine == 1 << UInt64(Self.emergency))
        #expect(inputs.command(.emergencyOff) == .heldByLine("emergency"), "a command cannot end what the line holds")
        #expect(inputs.command(.emergencyOn) == .alreadyInEffect, "declaring what is in effect changes nothing")
        // The command's own declaration stands after the line goes quiet.
        #expect(inputs.event(for: Self.edge(Self.emergency, active: false, at: 2), role: Self.emergency, context: &context) == nil)
        #expect(inputs.inputsOn == 1 << UInt64(Self.emergency))
        #expect(inputs.command(.emergencyOff) == .dispatched, "withdrawn by command once the line is quiet, it ends")
        #expect(inputs.inputsOn == 0)
        #expect(inputs.command(.coin) == .dispatched, "a command that is no condition's goes to the machine as it is")
    }

    @Test("at start-up a condition found on is returned to be sent, and a held push starts its clock")
    func start() {
        var inputs = Self.bindings()
        var context = App.makeContext(BoardFile.defaultSim.settings)
        let jam = BoardFile.defaultSim.settings.jamTimeout.nanosecondCount
        #expect(inputs.start(line: Self.emergency, active: true, context: &context, at: 5) == .emergencyOn)
        #expect(inputs.start(line: Self.push, active: true, context: &context, at: 5) == nil)
        let atStart = inputs.nextHeldDeadline
        #expect(atStart == (5 + jam, Self.push))
        #expect(inputs.debouncer.level(ofLine: Self.push))
    }

    @Test("new settings move the held-too-long limit of the next press, not of one already held")
    func retime() {
        var inputs = Self.bindings()
        var context = App.makeContext(BoardFile.defaultSim.settings)
        _ = inputs.event(for: Self.edge(Self.push, active: true, at: 0), role: Self.push, context: &context)
        let before = inputs.nextHeldDeadline.time
        var settings = BoardFile.defaultSim.settings
        settings.jamTimeout = .seconds(45)
        inputs.retime(settings)
        let afterRetime = inputs.nextHeldDeadline
        #expect(afterRetime.time == before)
        _ = inputs.event(for: Self.edge(Self.push, active: false, at: 1), role: Self.push, context: &context)
        _ = inputs.event(for: Self.edge(Self.push, active: true, at: 2), role: Self.push, context: &context)
        let nextPress = inputs.nextHeldDeadline
        #expect(nextPress.time == 2 + Duration.seconds(45).nanosecondCount)
    }
}
