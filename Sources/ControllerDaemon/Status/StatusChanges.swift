import ControllerFSM
import Synchronization

/// Tells the threads that report what status holds — the run's reporter (lost edges, outputs
/// held, systemd not hearing), the site's publisher (health, the inputs) — that something they
/// report changed, so that they sleep while nothing does instead of looking every second.
///
/// Each watcher sleeps on a doorbell of its own (the reporter on the controller's) and says so
/// here once, before its thread starts; `note()` bumps the count and rings each of them. A
/// watcher's sleep compares ``count`` (sequentially consistent) with the count it last acted
/// on: the store-buffer pattern of `Doorbell`, so no change is left unseen by a watcher asleep.
///
/// `note()` is called on the event loop's thread when a watched figure changed (rarely: an edge
/// lost, an output held): it allocates nothing, and makes a system call only for a watcher
/// asleep.
public final class StatusChanges: Sendable {
    /// Changes noted so far.
    private let changes = Atomic<UInt64>(0)
    private let watchers = Guarded<[Doorbell]>([])

    public init() {}

    /// Changes noted so far, sequentially consistent: what a watcher compares, in the sleep's
    /// `hasWork`, with the count it last acted on.
    public var count: UInt64 { changes.load(ordering: .sequentiallyConsistent) }

    /// Rings `doorbell` at every change from now on. Call it before the watcher's thread starts.
    public func watch(with doorbell: Doorbell) {
        watchers.withLock { $0.append(doorbell) }
    }

    /// Something a watcher reports changed: every watcher asleep is woken.
    public func note() {
        changes.add(1, ordering: .sequentiallyConsistent)
        let doorbells = watchers.withLock { $0 }
        // By index: an iterator over the array is not free of allocation in every build.
        for index in 0..<doorbells.count { doorbells[index].ring() }
    }
}
