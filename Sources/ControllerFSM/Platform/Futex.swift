import CLinux
import Synchronization

/// The futex calls `MutexLock` sleeps and wakes with: its only system calls, in one thin layer,
/// with the one fault a test needs to inject (see the daemon's `Syscalls`).
@usableFromInline
enum Futex {
    /// How many of the coming waits return at once, as a signal or a racing wake would make
    /// them. A lock must look again after every return; tests set this to check that it does.
    static let spuriousWakeupsToInject = Atomic<Int>(0)

    /// Sleeps while `word` holds `value`. Returns when woken, at once if `word` no longer holds
    /// `value` (EAGAIN), or on a signal (EINTR): in every case the caller looks at `word` again,
    /// so the result is not needed.
    static func wait(on word: UnsafeMutablePointer<Atomic<UInt32>>, whileItHolds value: UInt32) {
        if takeInjectedSpuriousWakeup() { return }
        _ = clinux_futex_wait(address(of: word), value)
    }

    /// As `wait(on:whileItHolds:)`, returning after `nanoseconds` at the latest.
    static func wait(on word: UnsafeMutablePointer<Atomic<UInt32>>, whileItHolds value: UInt32, nanoseconds: Int64) {
        if takeInjectedSpuriousWakeup() { return }
        _ = clinux_futex_wait_timeout(address(of: word), value, max(0, nanoseconds))
    }

    /// Wakes every thread sleeping on `word`.
    static func wakeAll(on word: UnsafeMutablePointer<Atomic<UInt32>>) {
        _ = clinux_futex_wake(address(of: word), Int32.max)
    }

    /// Wakes one thread sleeping on `word`, if any.
    static func wakeOne(on word: UnsafeMutablePointer<Atomic<UInt32>>) {
        _ = clinux_futex_wake(address(of: word), 1)
    }

    // `Atomic<UInt32>` is laid out as the `UInt32` the kernel compares.
    private static func address(of word: UnsafeMutablePointer<Atomic<UInt32>>) -> UnsafeMutablePointer<UInt32> {
        UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self)
    }

    private static func takeInjectedSpuriousWakeup() -> Bool {
        var remaining = spuriousWakeupsToInject.load(ordering: .relaxed)
        while remaining > 0 {
            let (exchanged, seen) = spuriousWakeupsToInject.compareExchange(
                expected: remaining, desired: remaining - 1, ordering: .relaxed)
            if exchanged { return true }
            remaining = seen
        }
        return false
    }
}
