import ControllerDaemon
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerTestSupport
import Foundation
import Testing
@testable import ControllerRuntime

/// In the daemon, a machine step that does not settle degrades the daemon, naming the cycle
/// (status, /healthz's reason, the journal), while the event loop goes on taking commands and
/// publishing status; nothing brings it back to running but a restart.
///
/// The time limit turns a loop that hangs into a failure; it is the project's ten minutes, not
/// one: under CI's two sanitizer runs on two cores a test waits for a thread of Swift's pool
/// behind tests blocked on processes, and one minute was exceeded by a test that took 0.05 s.
@Suite("The event loop with a machine that does not settle", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct UnsettledMachineLoopTests {
    typealias App = Runaway

    @Test func anUnsettledStepDegradesTheDaemonNamingTheCycleAndTheLoopGoesOn() async throws {
        let log = CapturedLog()
        let chip = SimChip(label: "runaway-sim", lines: [SimLine("BUTTON"), SimLine("PUMP"), SimLine("BEACON")], clock: ManualClock())
        let source = EventLoopTests.ManualSource<App>(chip: chip)
        let parts = try DaemonParts<App>(program: "runawayd", board: "test", chip: "sim", logger: log.logger)
        let controller = try Controller<App, SimChip>(chip: chip, board: try App.board())
        try controller.start(at: .zero)
        parts.lifecycle.send(.linesRequested)
        parts.lifecycle.send(.selfTestPassed)
        let loop = EventLoop(
            controller: controller, source: source, inbox: parts.inbox, status: parts.status, lifecycle: parts.lifecycle,
            notifier: parts.notifier, warnings: parts.warnings, stopAt: nil)
        let ended = Guarded(false)
        let thread = Thread {
            _ = loop.run()
            ended.withLock { $0 = true }
        }
        thread.start()

        #expect(parts.inbox.post(.event(.start)))
        #expect(await poll(for: TestTimeouts.daemon) { parts.status.stateName == "pumping" })
        // Sends past the queue's room are lost, and said: counted in status, named in the log.
        #expect(parts.inbox.post(.event(.flood)))
        let lost = 20 - Runaway.queueCapacity
        #expect(await poll(for: TestTimeouts.daemon) { parts.status.snapshot().droppedSends == lost }, "\(log.lines)")
        #expect(parts.status.snapshot().problems().contains("\(lost) event(s) the machine's work sent were lost: its run-to-completion queue was full"))
        #expect(log.lines.contains { $0.contains("\(lost) event(s) the machine's work sent were lost") }, "\(log.lines)")
        #expect(parts.lifecycle.phase == .running, "a full queue loses sends, and the step still settles")
        #expect(parts.inbox.post(.event(.spin)))
        #expect(await poll(for: TestTimeouts.daemon) { parts.lifecycle.phase == .degraded }, "\(log.lines)")
        let reason = try #require(parts.status.snapshot().degradedReason)
        #expect(reason.contains("looping --again--> looping") && reason.contains("MachineLimits.maximumInternalEvents"), "\(reason)")
        #expect(parts.status.snapshot().problems().contains { $0.hasPrefix("degraded: ") && $0.contains("looping") })
        #expect(log.lines.contains { $0.contains("degraded: the machine did not settle") }, "\(log.lines)")
        #expect(chip.outputValue(of: GPIOLineOffset(1)) == false, "the pump at its stop level")

        // The loop still answers: a command moves the machine, and status follows it.
        #expect(parts.inbox.post(.event(.stop)))
        #expect(await poll(for: TestTimeouts.daemon) { parts.status.stateName == "idle" })
        #expect(parts.lifecycle.phase == .degraded, "a machine that did not settle is not trusted again until a restart")
        // Nor does a chip or store recovering bring it back.
        parts.lifecycle.send(.storeRecovered)
        parts.lifecycle.send(.recovered)
        #expect(parts.lifecycle.phase == .degraded)

        parts.inbox.requestStop()
        #expect(await poll(for: TestTimeouts.daemon) { ended.withLock { $0 } })
    }
}
