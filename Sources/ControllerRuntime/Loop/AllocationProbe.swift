
/// Counts the event loop thread's heap allocations when the process runs with the test
/// allocator preloaded (`LD_PRELOAD=libmalloccount.so`, as the hardware-in-the-loop tests do);
/// otherwise does nothing. The production build carries no allocator of its own.
struct AllocationProbe {
    private typealias Start = @convention(c) () -> Void
    private typealias Stop = @convention(c) () -> UInt64

    private let start: Start?
    private let stop: Stop?

    init() {
        start = Syscalls.preloadedFunction("malloc_counter_start").map { unsafeBitCast($0, to: Start.self) }
        stop = Syscalls.preloadedFunction("malloc_counter_stop").map { unsafeBitCast($0, to: Stop.self) }
    }

    var isAvailable: Bool { start != nil && stop != nil }

    /// Starts counting the calling thread's allocations.
    func begin() { start?() }

    /// The calling thread's allocations since ``begin()``, or `nil` without the counter.
    func end() -> UInt64? { stop?() }
}
