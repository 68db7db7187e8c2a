import ControllerFSM
import ControllerHost
import Testing

// The examples in ControllerHost's doc comments, line for line, so that each compiles and the
// declaration it shows is one the host takes (DocumentationExamplesTests finds every example's
// lines here, in order).

/// ControllerApplication's example: a door opened by a button, closed after a delay; and
/// HomeAssistantHints' example, the same door as a Home Assistant cover.
enum DocCommentDoor {
    enum DoorState: Int, MachineSymbol { case closed, opening, open, closing, fault }
    enum DoorEvent: Int, MachineSymbol { case open, request, opened, timeout, closed }
    struct DoorSettings: Hashable, Sendable { var closeDelay: Duration = .seconds(5) }
    struct DoorContext: Sendable {
        var settings: DoorSettings
        var openings = 0
        init(_ settings: DoorSettings) { self.settings = settings }
    }

    static func doorDefinition() -> MachineDefinition<DoorState, DoorEvent, DoorContext> {
        var definition = MachineDefinition<DoorState, DoorEvent, DoorContext>(initial: .closed)
        definition.state(.closed) { s in
            s.on(.open, to: .opening) { c, _ in c.openings += 1 }
            s.on(.request, to: .opening) { c, _ in c.openings += 1 }
        }
        definition.state(.opening) { s in
            s.on(.opened, to: .open)
            s.on(.timeout, to: .fault)   // stalled: no `opened` in time
        }
        definition.state(.open) { s in s.on(.timeout, to: .closing) }
        definition.state(.closing) { s in s.on(.closed, to: .closed) }
        definition.state(.fault) { _ in }
        return definition
    }

    enum Door: ControllerApplication {
        static let name = "door"
        static let table = try! doorDefinition().compile()
        static let settings = SettingsDeclaration<Door>(section: "door", defaults: DoorSettings(), keys: [
            .duration("close_delay", \.closeDelay, summary: "how long the door stays open"),
        ])
        static func makeContext(_ settings: DoorSettings) -> DoorContext { DoorContext(settings) }
        static func apply(_ settings: DoorSettings, to context: inout DoorContext) { context.settings = settings }
        static let inputs: [InputDeclaration<Door>] = [
            .pulse("button", sends: .open, required: true, simulatedPulse: .milliseconds(100)),
        ]
        static let outputs: [OutputDeclaration<Door>] = [
            OutputDeclaration("motor", required: true, initial: false) { state, _ in state == .opening },
        ]
        static let counters: [CounterDeclaration<Door>] = [.init("openings", \.openings)]

        static var homeAssistant: HomeAssistantHints<Self> {
            HomeAssistantHints(faultStates: [.fault], cover: .init(deviceClass: "gate", open: .request, openStates: [.open], opening: [.opening], closing: [.closing]))
        }
    }
}

@Suite("The doc comments' examples are declarations the host takes")
struct HostDocCommentExamplesTests {
    typealias Door = DocCommentDoor.Door

    @Test("the door's declaration reads a board, counts its openings and drives its motor")
    func door() throws {
        let board = try Board<Door>.parse("""
            [board]
            name = "bench"
            backend = "sim"
            chip = "door-sim"
            [inputs.button]
            line = 0
            [outputs.motor]
            line = 1
            [door]
            close_delay = "2s"
            """, file: "door.toml")
        #expect(board.settings.closeDelay == .seconds(2))
        var context = Door.makeContext(board.settings)
        #expect(context.settings.closeDelay == .seconds(2))
        context.openings = 3
        #expect(Door.counters.map { $0.value(context) } == [3])
        #expect(Door.outputs.first?.level(Door.table.configuration(at: .opening), context) == true)
        #expect(Door.outputs.first?.level(Door.table.configuration(at: .closed), context) == false)
        #expect(Door.homeAssistant.faultStates == [.fault])
        #expect(Door.homeAssistant.cover?.open == .request)
    }
}
