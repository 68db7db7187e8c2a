import Testing

@testable import ControllerRuntime

/// The daemon's own timer (readiness' patience waits on it instead of `Task.sleep`, whose timer
/// would start libdispatch's pool): it waits its time, and a cancelled task stops waiting.
@Suite("DaemonExecutor.sleep: an event loop's timer")
struct DaemonExecutorTests {
    static let short: Duration = .milliseconds(50)
    /// Far longer than any test, a loaded machine's included (the whole suite on 2 cores has
    /// kept a cancelled sleep's task from resuming for 90 s): a sleep that ends near it was not
    /// cancelled; one that is never cancelled meets the suite's time limit.
    static let long: Duration = .seconds(3600)

    @Test("waits at least its duration")
    func waitsItsDuration() async {
        let clock = ContinuousClock()
        let start = clock.now
        await DaemonExecutor.sleep(for: Self.short)
        #expect(clock.now - start >= Self.short)
    }

    @Test("ends when its task is cancelled, long before its duration")
    func endsOnCancellation() async {
        let clock = ContinuousClock()
        let start = clock.now
        let sleeper = Task { await DaemonExecutor.sleep(for: Self.long) }
        try? await Task.sleep(for: Self.short)
        sleeper.cancel()
        await sleeper.value
        #expect(clock.now - start < Self.long / 2)
    }

    @Test("a task cancelled before it sleeps does not wait")
    func cancelledBeforeItSleeps() async {
        let clock = ContinuousClock()
        let start = clock.now
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await DaemonExecutor.sleep(for: Self.long)
        }
        await sleeper.value
        #expect(clock.now - start < Self.long / 2)
    }

    @Test("a duration past what NIO's TimeAmount holds is a long sleep, not an overflow")
    func hugeDurationDoesNotOverflow() async {
        let sleeper = Task { await DaemonExecutor.sleep(for: .seconds(Int64.max)) }
        try? await Task.sleep(for: Self.short)
        sleeper.cancel()
        await sleeper.value
    }
}
