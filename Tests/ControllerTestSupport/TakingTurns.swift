import Testing

/// Tests that must not overlap though they are in different suites, and each test case among
/// them takes its turn: `@Suite(.takingTurns(.injectedFaults))`.
///
/// `.serialized` orders the tests of one suite only. ControllerDaemon's system call faults are
/// armed for the whole process (each is taken by the next matching call, whichever server or
/// client makes it), so the tests that arm them and every test that runs a control server or
/// client in this process take turns: a fault armed for one must not be taken by another's.
package struct TakingTurns: TestTrait, SuiteTrait, TestScoping {
    package let turns: Turns

    /// A set of tests that take turns.
    package final class Turns: Sendable {
        package let name: String
        private let lock = AsyncExclusion()
        package init(_ name: String) { self.name = name }

        func run(_ body: @Sendable () async throws -> Void) async throws {
            await lock.acquire()
            do {
                try await body()
            } catch {
                await lock.release()
                throw error
            }
            await lock.release()
        }

        /// ControllerDaemon's process-wide system call faults, and the control sockets they fail.
        package static let injectedFaults = Turns("ControllerDaemon's injected system call faults")
    }

    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The turns are the test cases': a suite's scope, or a function's around its cases, passes.
        guard testCase != nil else { return try await function() }
        try await turns.run(function)
    }
}

extension Trait where Self == TakingTurns {
    /// The tests with this trait, in whichever suites, run one test case at a time.
    package static func takingTurns(_ turns: TakingTurns.Turns) -> Self { TakingTurns(turns: turns) }
}

/// A lock for async code: one holder at a time, the others waiting in order without a thread.
actor AsyncExclusion {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else { held = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
    }
}
