import Synchronization

/// The one way a test makes a system call fail, which every target's system call layer asks
/// before it calls the kernel (the runtime's wake-ups, the daemon's sockets and files, the count
/// store's, the loaders'): `if faults.fails(.open) { return -1 }`, with `errno` set as the
/// kernel would set it. swift-system's `Internals/Syscalls.swift` is the model: one thin layer
/// per boundary, and one place to fail a call.
///
/// Two scopes, for the two places calls are made:
/// - `failing(_:_:)`: every listed call fails while `body` runs, when made on its
///   task (or a task it starts): tests running in parallel in one process each see their own.
/// - `arm(_:errno:count:)`: the next `count` calls, on any thread, fail once each: for calls
///   made where no task reaches (a server's thread, an event loop's). Process-wide: a layer makes
///   its `Call` name where the call is made (the event loop's wait by its first descriptor, the
///   daemon's calls by their socket or file), so that tests running at once arm each its own.
///
/// With nothing armed or scoped, which is always outside tests, asking costs two atomic loads
/// and allocates nothing (some layers ask on the event path).
package final class SyscallFaults<Call: Hashable & Sendable>: @unchecked Sendable {
    // Safety: `armed` is read and written only under `lock`; the counts are atomics.
    private let lock = MutexLock()
    private var armed: [Call: [Int32]] = [:]
    /// How many failures are armed in all; changed under `lock`, read without it.
    private let armedCount = Atomic<Int>(0)
    /// How many `failing` scopes are open, on any task: none, and no task-local is read.
    private let openScopes = Atomic<Int>(0)
    private let scoped = TaskLocal<[Call: Int32]>(wrappedValue: [:])

    package init() {}

    /// Runs `body` with each of `calls` failing with its `errno`, for calls made on this task.
    package func failing<R>(_ calls: [Call: Int32], _ body: () throws -> R) rethrows -> R {
        openScopes.add(1, ordering: .releasing)
        defer { openScopes.subtract(1, ordering: .releasing) }
        return try scoped.withValue(calls, operation: body)
    }

    /// Runs `body` with each of `calls` failing with its `errno`, for calls made on this task
    /// and the tasks it starts.
    package func failing<R>(_ calls: [Call: Int32], _ body: () async throws -> R) async rethrows -> R {
        openScopes.add(1, ordering: .releasing)
        defer { openScopes.subtract(1, ordering: .releasing) }
        return try await scoped.withValue(calls, operation: body)
    }

    /// Makes the next `times` calls of `call`, on any thread, fail with `code`.
    package func arm(_ call: Call, errno code: Int32, count times: Int = 1) {
        lock.withLock {
            armed[call, default: []] += Array(repeating: code, count: times)
            armedCount.add(times, ordering: .releasing)
        }
    }

    /// Whether any call may fail now: false (two atomic loads) outside tests, and a layer need
    /// not even make the call's key.
    package var mayFail: Bool {
        openScopes.load(ordering: .acquiring) > 0 || armedCount.load(ordering: .acquiring) > 0
    }

    /// Forgets the armed failures of the calls `matching` picks (a test's own, at its end).
    package func disarm(where matching: (Call) -> Bool) {
        lock.withLock {
            for (call, codes) in armed where matching(call) {
                armedCount.subtract(codes.count, ordering: .releasing)
                armed[call] = nil
            }
        }
    }

    /// Forgets every armed failure.
    package func disarmAll() {
        lock.withLock {
            armed = [:]
            armedCount.store(0, ordering: .releasing)
        }
    }

    /// How many armed failures of `call` are still to be taken: a test's check that a caller
    /// made the call once, not again and again.
    package func pending(_ call: Call) -> Int {
        lock.withLock { armed[call]?.count ?? 0 }
    }

    /// The `errno` this call of `call` fails with, if a test made it fail: the scope's first,
    /// then the next armed one (taken). `call` is made only when something may fail: a key that
    /// names its place (a path) costs nothing outside tests.
    package func take(_ call: @autoclosure () -> Call) -> Int32? {
        guard mayFail else { return nil }
        let call = call()
        if openScopes.load(ordering: .acquiring) > 0, let code = scoped.get()[call] { return code }
        guard armedCount.load(ordering: .acquiring) > 0 else { return nil }
        return lock.withLock {
            guard var codes = armed[call], !codes.isEmpty else { return nil }
            let code = codes.removeFirst()
            armed[call] = codes
            armedCount.subtract(1, ordering: .releasing)
            return code
        }
    }

    /// True, with `errno` set to the failure's, when a test made this call of `call` fail.
    package func fails(_ call: @autoclosure () -> Call) -> Bool {
        guard let code = take(call()) else { return false }
        SystemErrno.current = code
        return true
    }
}
