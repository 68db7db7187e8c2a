import ControllerDaemon
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Foundation
import Testing
import Turnstile
import TurnstileTestSupport
@testable import ControllerRuntime

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's event loop below the assembled daemon: its own thread on a simulated chip whose
/// time the test sets, told what to do through the command inbox as `ctl` tells it. What it
/// owes: a chip that goes away degrades the daemon and is taken back by itself when it returns;
/// an interrupted wait is taken again; any other failed wait ends the loop, naming its errno.
@Suite struct EventLoopTests {
    typealias App = TurnstileApplication

    /// Time as the test sets it; the chip, the loop's and the controller's.
    /// Generic as the daemon's sources are (a source of the turnstile alone would have a plant
    /// action of type `Never`, and a body the compiler warns it never runs).
    final class ManualSource<SourceApp: ControllerApplication>: EventSource, @unchecked Sendable {
        typealias App = SourceApp
        // Safety: `time` is guarded; the chip is thread-safe.
        let chip: SimChip
        private let time = Guarded(MachineInstant.zero)

        init(chip: SimChip) { self.chip = chip }

        func set(_ instant: MachineInstant) { time.withLock { $0 = instant } }
        func now() -> MachineInstant { time.withLock { $0 } }
        func startInstant() -> MachineInstant { .zero }
        var nextDeadline: MachineInstant? { nil }
        func advance(to now: MachineInstant, controller: Controller<App, SimChip>) throws(GPIOError) { chip.advance(to: now) }
        func pulse(input index: Int, at now: MachineInstant) -> PulseOutcome { .notDrivable }
        func setLevel(input index: Int, active: Bool, at now: MachineInstant) -> PulseOutcome { .notDrivable }
        func perform(plant action: App.Plant.Action, controller: Controller<App, SimChip>, at now: MachineInstant) -> PulseOutcome { .notDrivable }
        func unstartedPulses(at now: MachineInstant) -> [(role: RoleName, count: Int)] { [] }
        func reopen() -> SimChip? { chip.isGone ? nil : chip }
        var expectations: ScriptExpectations { ScriptExpectations() }
    }

    /// A started controller on the simulated board, its parts running, and a loop over them.
    struct Fixture: @unchecked Sendable {
        // Safety: the loop and the controller are touched by the loop's thread only once it runs.
        let log = CapturedLog()
        let parts: DaemonParts<App>
        let source: ManualSource<App>
        let controller: Controller<App, SimChip>
        let loop: EventLoop<ManualSource<App>>

        /// `stopAt`: a script's end (`--stop-at-end`).
        init(stopAt: MachineInstant? = nil) throws {
            let board = try simBoard()
            let simulated = SimulatedBoard(board: board, clock: ManualClock(), seed: 1) { _ in }
            source = ManualSource(chip: simulated.chip)
            parts = try DaemonParts<App>(program: "turnstiled", board: "test", chip: "sim", logger: log.logger)
            controller = try Controller<App, SimChip>(chip: simulated.chip, board: board, completionClock: ManualClock())
            try controller.start(at: .zero)
            _ = parts.lifecycle.send(.linesRequested)
            _ = parts.lifecycle.send(.selfTestPassed)
            loop = EventLoop(
                controller: controller, source: source, inbox: parts.inbox, status: parts.status, lifecycle: parts.lifecycle,
                notifier: parts.notifier, warnings: parts.warnings, stopAt: stopAt)
        }

        /// Starts the loop on a thread of its own, at once (not from a task, which waits for a
        /// thread of Swift's pool, and those other tests may hold); its ending, told as text
        /// (`Ending` is the loop's), is awaited with `ending(of:)`.
        func start() -> Guarded<String?> {
            let ending = Guarded<String?>(nil)
            let loop = self.loop
            let thread = Thread {
                let text = switch loop.run() {
                case .stopped: "stopped"
                case .gpioError(let error): "gpioError: \(error)"
                case .waitFailed(let code): "waitFailed: \(code)"
                }
                ending.withLock { $0 = text }
            }
            thread.start()
            return ending
        }

        /// How the loop started by `start()` ended, once it has (nil if not within the bound).
        func ending(of run: Guarded<String?>) async -> String? {
            _ = await poll(for: TestTimeouts.daemon) { run.withLock { $0 } != nil }
            return run.withLock { $0 }
        }

        func post(_ command: DaemonCommand<App>) {
            #expect(parts.inbox.post(command))
        }
    }

    @Test func aChipThatGoesAwayDegradesTheDaemonAndIsTakenBackWhenItReturns() async throws {
        let fixture = try Fixture()
        let run = fixture.start()
        fixture.source.chip.disappear()
        fixture.source.set(.zero + .milliseconds(100))
        fixture.post(.event(.coin))
        #expect(await poll(for: TestTimeouts.daemon) { fixture.parts.lifecycle.phase == .degraded }, "\(fixture.log.lines)")
        #expect(fixture.log.lines.contains { $0.contains("degraded, looking for the chip every second") }, "\(fixture.log.lines)")

        // Looked for again a second later: still gone, still degraded; a command meanwhile is refused.
        fixture.source.set(.zero + .milliseconds(1_200))
        fixture.post(.event(.coin))
        try await Task.sleep(for: .milliseconds(100))
        #expect(fixture.parts.lifecycle.phase == .degraded)

        // Back: at the next look the lines are requested again and the daemon runs.
        fixture.source.chip.reappear()
        fixture.source.set(.zero + .milliseconds(2_300))
        fixture.post(.event(.coin))
        #expect(await poll(for: TestTimeouts.daemon) { fixture.parts.lifecycle.phase == .running }, "\(fixture.log.lines)")
        #expect(fixture.log.lines.contains("the GPIO chip is back: lines requested again, running"), "\(fixture.log.lines)")

        fixture.parts.inbox.requestStop()
        #expect(await fixture.ending(of: run) == "stopped")
    }

    @Test func anInterruptedWaitIsTakenAgain() async throws {
        let fixture = try Fixture()
        Syscalls.faults.arm(.wait(firstDescriptor: fixture.parts.inbox.pollDescriptor), errno: EINTR, count: 3)
        let run = fixture.start()
        fixture.parts.inbox.requestStop()
        #expect(await fixture.ending(of: run) == "stopped")
    }

    // A loop that wakes late — a busy machine, an emulated one — takes a stop where it was
    // asked for, in the machine's time: what came before it is taken, what came after it is
    // not, and the run ends at that instant (the recording's `end`, the last ledger entry).
    // Found under qemu: a recording whose end said 5.86 s for a run that stopped at its
    // script's end, 4.1 s, replayed a repair period's end the run never reached.

    @Test("a stop request that wakes the loop with an edge: the edge is counted before the stop")
    func aStopRequestTakesTheEdgeBesideIt() async throws {
        let fixture = try Fixture()
        // A coin's pulse already in the line's buffer, debounced by 0.2 s, when the stop comes.
        let coin = try fixture.source.chip.offset(ofLineNamed: "COIN")
        fixture.source.chip.schedulePulse(line: coin, at: .zero + .milliseconds(100), width: .milliseconds(50))
        fixture.source.set(.zero + .milliseconds(200))
        fixture.source.chip.advance(to: .zero + .milliseconds(200))
        fixture.parts.inbox.requestStop()
        #expect(await fixture.ending(of: fixture.start()) == "stopped")
        #expect(fixture.controller.count(named: "coins") == 1, "a stop dropped the coin in front of it")
        #expect(fixture.controller.state == .unlocked)
        #expect(fixture.loop.endedAt == .zero + .milliseconds(200))
    }

    @Test("a stop request with a deadline already due: the deadline fires before the stop")
    func aStopRequestTakesADueDeadline() async throws {
        let fixture = try Fixture()
        _ = try fixture.controller.send(.coin, at: .zero)
        #expect(fixture.controller.state == .unlocked)
        // The relock (boards/sim.toml: 5 s) is due when the loop first wakes, with the request.
        fixture.source.set(.zero + .seconds(6))
        fixture.parts.inbox.requestStop()
        #expect(await fixture.ending(of: fixture.start()) == "stopped")
        #expect(fixture.controller.state == .locked, "the relock due at 5 s was dropped by a stop at 6 s")
        #expect(fixture.loop.endedAt == .zero + .seconds(6))
    }

    @Test("a loop that wakes after the script's end stops at the end: no deadline after it fires, no command that waited is played")
    func aLateWakeStopsAtTheScriptsEnd() async throws {
        let fixture = try Fixture(stopAt: .zero + .seconds(2))
        _ = try fixture.controller.send(.coin, at: .zero)
        // The loop's first wake is at 7 s: past the end (2 s) and past the relock (5 s), with a
        // command waiting that came after the end.
        fixture.source.set(.zero + .seconds(7))
        fixture.post(.event(.coin))
        #expect(await fixture.ending(of: fixture.start()) == "stopped")
        #expect(fixture.loop.endedAt == .zero + .seconds(2))
        #expect(fixture.controller.state == .unlocked, "the relock at 5 s fired in a run that ended at 2 s")
        #expect(fixture.controller.count(named: "coins") == 1, "a command taken after the end was played")
        #expect(fixture.parts.inbox.takeLeftovers().count == 1, "the command that waited is left for the stop's report")
    }

    @Test func aWaitThatFailsOtherwiseEndsTheLoopNamingItsErrno() async throws {
        let fixture = try Fixture()
        Syscalls.faults.arm(.wait(firstDescriptor: fixture.parts.inbox.pollDescriptor), errno: EBADF)
        #expect(await fixture.ending(of: fixture.start()) == "waitFailed: \(EBADF)")
    }
}
