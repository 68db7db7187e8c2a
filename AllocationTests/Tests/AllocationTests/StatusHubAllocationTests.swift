import AllocationCounting
import ControllerFSM
import Testing
import ControllerDaemon
import Turnstile

/// The event loop publishes to the status hub after every turn: that must not allocate, even
/// called unspecialised from another module as here (an optimised build only does better), nor
/// when what it publishes changed and the hub notes it to its watchers (`StatusChanges`).
@Suite("Status hub allocation", .enabled(if: canCountAllocations, "the allocation counter does not work under a sanitizer"))
struct StatusHubAllocationTests {
    @Test func publishLoopAllocatesNothingOnceWarmedUp() {
        let hub = StatusHub<TurnstileApplication>(board: "sim", chip: "simchip0", inbox: nil)
        // Two watchers, as the daemon has (the reporter, the site's publisher), neither asleep.
        hub.changes.watch(with: Doorbell())
        hub.changes.watch(with: Doorbell())
        let states = TurnstileState.allCases
        hub.publishLoop(state: .unlocked, events: 1, lostEdges: 0)
        let noted = hub.changes.count
        malloc_counter_start()
        for turn in 0..<1_000 {
            hub.publishLoop(state: states[turn % states.count], events: turn, lostEdges: turn / 7, inputsOn: UInt64(turn / 50 % 2))
        }
        let allocations = malloc_counter_stop()
        #expect(allocations == 0)
        #expect(hub.changes.count > noted, "changes were noted, so the noting was measured too")
        #expect(hub.snapshot().state == states[999 % states.count].name)
    }
}
