import ControllerFSM
import Foundation
import Testing

// The nested example of docs/guide.md, verbatim between the markers.

// README-NESTED-BEGIN
enum Door: Int, MachineSymbol { case inService, locked, released, open, fire, back }
enum DoorInput: Int, MachineSymbol { case badge, opened, closed, fireOn, fireOff }

struct Entrance {
    var doorOpen = false
    var entries = 0
}

func makeDoor(doorOpenAtStart: Bool = false) throws -> StateMachine<Door, DoorInput, Entrance> {
    var door = MachineDefinition<Door, DoorInput, Entrance>(initial: .inService)

    // A superstate: its block holds what every state inside it shares.
    door.state(.inService) { s in
        // Where it starts is chosen by guard: a door found open at start-up starts in open.
        s.initial(.open, when: Guard("door open") { $0.doorOpen })
        s.initial(.locked)
        s.on(.fireOn, to: .fire)       // the fire alarm, answered once for every state inside
        s.on(.opened, to: .open) { entrance, _ in entrance.doorOpen = true }
    }
    door.state(.locked, in: .inService) { s in
        s.on(.badge, to: .released)
    }
    door.state(.released, in: .inService) { s in
        // Answers `opened` itself; inService's row answers it in the other states.
        s.on(.opened, to: .open) { entrance, _ in
            entrance.doorOpen = true
            entrance.entries += 1
        }
    }
    door.state(.open, in: .inService) { s in
        s.on(.closed, to: .locked) { entrance, _ in entrance.doorOpen = false }
    }
    // Back where inService was when it was left (shallow history), locked the first time.
    door.history(.back, of: .inService, default: .locked)
    door.state(.fire) { s in
        s.on(.fireOff, to: .back)
    }

    let table = try door.compile()
    return StateMachine(table: table, context: Entrance(doorOpen: doorOpenAtStart))
}
// README-NESTED-END

@Suite("docs/guide.md nested example")
struct NestedReadmeExampleTests {
    @Test("docs/guide.md's nested machine does what the guide says")
    func readmeDoor() throws {
        // README-NESTED-USAGE-BEGIN
        var door = try makeDoor()
        door.start()                         // inService, then locked
        door.send(.badge, at: .zero)         // released
        door.send(.fireOn, at: .zero)        // fire: inService's row, from released
        door.send(.fireOff, at: .zero)       // back: released again
        print(door.table.configuration(of: door.state).map(\.name))   // ["released", "inService"]
        // README-NESTED-USAGE-END
        #expect(door.state == .released)
        var open = try makeDoor(doorOpenAtStart: true)
        open.start()
        #expect(open.state == .open)
        open.send(.opened, at: .zero)
        #expect(open.context.entries == 0, "inService's row answered: no badge, no entry counted")
    }

    @Test("docs/guide.md shows this example verbatim, and its diagram")
    func readmeShowsIt() throws {
        try expectReadmeShows(#filePath, example: "README-NESTED", usage: "README-NESTED-USAGE", diagram: try makeDoor().table.mermaid(), in: "docs/guide.md")
    }
}
