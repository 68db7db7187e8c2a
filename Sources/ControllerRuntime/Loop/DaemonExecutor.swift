import CExecutorHook
import NIOCore
import NIOPosix

/// Where the daemon's Swift tasks run: on NIO's event loop threads (the ones its HTTP server
/// runs on already), not on libdispatch's thread pool.
///
/// Why: on Linux, libdispatch watches its pool with a timer on its manager thread that fires
/// every second for the rest of the process once a pool thread has started
/// (`_dispatch_workq_monitor_pools`, with no setting that stops it), and Swift's global
/// executor is that pool. A daemon whose tasks ran there once woke every second for ever, idle
/// or not (docs/performance.md, "Idle wake-ups"). NIO's event loops sleep in `epoll_wait` until
/// there is work or a timer they were given is due.
///
/// What the daemon's tasks must not do, for this to hold: block an event loop thread for long
/// (their blocking work runs on threads of their own, as the event loop, the store and the
/// reporter do), or call `Task.sleep`, whose timer is still libdispatch's: ``sleep(for:)`` is
/// the daemon's.
enum DaemonExecutor {
    /// Makes NIO's event loops Swift's global executor. Only before the process's first task,
    /// once; a process where Swift's hook is already taken keeps libdispatch's pool, and with it
    /// a wake-up a second (false then).
    ///
    /// Through CExecutorHook, not swift-nio's
    /// `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()`, which finds
    /// the runtime's hook with `dlsym`: in the shipped build (the Swift runtime linked
    /// statically) the hook is a local symbol, `dlsym` finds nothing, and that call returns
    /// false having changed nothing. Each job goes where swift-nio's hook sends it: the event
    /// loop of the thread that enqueues it when that is one of the group's, another otherwise.
    @discardableResult
    static func install() -> Bool {
        cexh_install { job in
            guard let job else { return }
            let unownedJob = unsafeBitCast(job, to: UnownedJob.self)
            MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(unownedJob))
        }
    }

    /// Whether the daemon's executor is the one Swift's runtime uses now.
    static var isInstalled: Bool { cexh_is_installed() }

    /// Waits `duration` on an event loop's timer, or until the task is cancelled.
    static func sleep(for duration: Duration) async {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let amount: TimeAmount = nanoseconds.overflow ? .hours(Self.longestSleepHours) : .nanoseconds(nanoseconds.partialValue &+ attoseconds / 1_000_000_000)
        let scheduled = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: amount) {}
        await withTaskCancellationHandler {
            _ = try? await scheduled.futureResult.get()
        } onCancel: {
            scheduled.cancel()
        }
    }

    /// A duration past what `TimeAmount` holds in nanoseconds (292 years) sleeps this long.
    static let longestSleepHours: Int64 = 24 * 365 * 100
}
