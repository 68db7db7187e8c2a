import Foundation

/// Runs `body`, which blocks (a child process's end, a socket's reply), on a thread of its own
/// and waits for it without holding a thread. Swift Testing runs every test on Swift
/// concurrency's pool, as wide as the machine has cores (two here): a test that blocks one of
/// those threads for seconds stops every other test from running meanwhile, which made simple
/// in-process tests wait 100 s for a thread behind the command line's.
package func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Polls `condition` every `interval` until it holds or `timeout` passes; whether it held.
/// Returns as soon as it holds, and sleeps between looks without holding a thread.
package func poll(
    for timeout: Duration, every interval: Duration = .milliseconds(10), until condition: () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return await condition()
}
