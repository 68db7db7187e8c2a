import ControllerFSM
import Testing
@testable import ControllerDaemon

/// The daemon's phases around what it loses and gets back: a store that writes again and a chip
/// found again each end their part of `degraded`; the daemon runs again when neither is missing.
@Suite("DaemonLifecycle: degraded and back")
struct DaemonLifecycleTests {
    func running() -> LifecycleHolder {
        let holder = LifecycleHolder { _, _ in }
        holder.send(.linesRequested)
        holder.send(.selfTestPassed)
        return holder
    }

    @Test("a store that writes again takes the daemon back to running, with no reason left")
    func storeRecovers() {
        let holder = running()
        #expect(holder.send(.storeLost) == .degraded)
        #expect(holder.context.degradedReason?.contains("count store") == true)
        #expect(holder.send(.storeRecovered) == .running)
        #expect(holder.context.degradedReason == nil)
    }

    @Test("store and chip both lost: running again only when both are back, in either order", arguments: [false, true])
    func bothMustRecover(storeFirst: Bool) {
        let holder = running()
        holder.send(.storeLost)
        holder.send(.chipLost)
        let first: DaemonLifecycleEvent = storeFirst ? .storeRecovered : .recovered
        let second: DaemonLifecycleEvent = storeFirst ? .recovered : .storeRecovered
        #expect(holder.send(first) == .degraded)
        #expect(holder.context.degradedReason == (storeFirst ? "the GPIO chip is gone; retrying" : "the count store cannot write; counts are not being made durable"))
        #expect(holder.send(second) == .running)
    }

    @Test("every change of the store's health is told, so status and metrics follow")
    func recoveryIsTold() {
        let told = Guarded<[(DaemonPhase, String?)]>([])
        let holder = LifecycleHolder { phase, context in told.withLock { $0.append((phase, context.degradedReason)) } }
        holder.send(.linesRequested)
        holder.send(.selfTestPassed)
        holder.send(.storeLost)
        holder.send(.storeRecovered)
        let phases = told.withLock { $0.map(\.0) }
        #expect(phases == [.selfTest, .running, .degraded, .running])
        #expect(told.withLock { $0.last?.1 } == nil)
    }
}
