import ControllerFSM
import Foundation
import Testing

// The parallel example of docs/guide.md, verbatim between the markers.

// README-PARALLEL-BEGIN
enum Airlock: Int, MachineSymbol { case running, outer, outerShut, outerOpen, inner, innerShut, innerOpen, alarm }
enum AirlockInput: Int, MachineSymbol { case outerOpened, outerClosed, innerOpened, innerClosed, fire, reset }

struct Passages { var alarms = 0 }

func makeAirlock() throws -> StateMachine<Airlock, AirlockInput, Passages> {
    var airlock = MachineDefinition<Airlock, AirlockInput, Passages>(initial: .running)

    // Parallel regions: every state directly inside is a region, all active at once.
    airlock.parallel(.running) { s in
        s.on(.fire, to: .alarm) { passages, _ in passages.alarms += 1 }   // leaves both regions
    }
    airlock.state(.outer, in: .running) { s in s.initial(.outerShut) }
    airlock.state(.outerShut, in: .outer) { s in s.on(.outerOpened, to: .outerOpen) }
    airlock.state(.outerOpen, in: .outer) { s in s.on(.outerClosed, to: .outerShut) }
    airlock.state(.inner, in: .running) { s in s.initial(.innerShut) }
    airlock.state(.innerShut, in: .inner) { s in s.on(.innerOpened, to: .innerOpen) }
    airlock.state(.innerOpen, in: .inner) { s in s.on(.innerClosed, to: .innerShut) }
    airlock.state(.alarm) { s in
        // Back with both doors open, as the alarm found them.
        s.on(.reset, to: [.outerOpen, .innerOpen])
    }

    return StateMachine(table: try airlock.compile(), context: Passages())
}
// README-PARALLEL-END

@Suite("docs/guide.md parallel example")
struct ParallelReadmeExampleTests {
    @Test("docs/guide.md's parallel machine does what the guide says")
    func readmeAirlock() throws {
        // README-PARALLEL-USAGE-BEGIN
        var airlock = try makeAirlock()
        airlock.start()                            // outerShut and innerShut, at once
        airlock.send(.outerOpened, at: .zero)      // only the outer region answers
        print(airlock.activeStates.map(\.name))    // ["outerOpen", "innerShut"]
        airlock.send(.fire, at: .zero)             // running's row: both regions left
        airlock.send(.reset, at: .zero)            // one state in each region
        print(airlock.activeStates.map(\.name))    // ["outerOpen", "innerOpen"]
        // README-PARALLEL-USAGE-END
        #expect(airlock.activeStates == [.outerOpen, .innerOpen])
        #expect(airlock.context.alarms == 1)
        #expect(airlock.isActive(.running) && airlock.isActive(.inner))
    }

    @Test("docs/guide.md shows this example verbatim, and its diagram")
    func readmeShowsIt() throws {
        try expectReadmeShows(#filePath, example: "README-PARALLEL", usage: "README-PARALLEL-USAGE", diagram: try makeAirlock().table.mermaid(), in: "docs/guide.md")
    }
}
