@testable import ControllerRuntime
import ControllerTestSupport
import ControllerFSM
import ControllerHost
import Testing

/// The readable trace must not show "ignored" for an edge of a level the host keeps in the
/// context: that edge is handled in every state and never counted as ignored. Every kept
/// level's edges, in every state: shown as the level change; other ignored events stay ignored.
@Suite("the readable trace shows kept level edges as level changes")
struct TraceLevelEdgeTests {
    @Test func keptLevelEdgesAreNotIgnored() {
        let reporter = TextReporter<Hatch>(colors: false, header: "test")
        for state in Hatch.State.allCases {
            for (event, word) in [(Hatch.Event.guardOpened, "guard active"), (.guardClosed, "guard inactive")] {
                let line = reporter.line(DispatchRecord(time: MachineInstant(nanoseconds: 0), from: state, event: event, to: state, outcome: .ignored))
                #expect(!line.contains("ignored"), "\(line)")
                #expect(line.contains("\(word) in \(state.name)"), "\(line)")
            }
            let line = reporter.line(DispatchRecord(time: MachineInstant(nanoseconds: 0), from: state, event: .start, to: state, outcome: .ignored))
            #expect(line.contains("ignored in \(state.name)"), "\(line)")
        }
    }
}
