import Dispatch

/// The bounds the tests rely on when they meet real time: waits for
/// a condition (each returns as soon as the condition holds, so a bound costs nothing on the
/// happy path and only says how long a broken run takes to fail), and windows that show that
/// something does not happen.
///
/// The machine they must hold on: CI runs the AddressSanitizer and ThreadSanitizer test runs at
/// the same time on 2 cores, which makes a daemon's start, a drain or a reply 5–20 times slower
/// than a plain debug run, and a run may be descheduled for a while at any moment.
package enum TestTimeouts {
    /// A daemon's start (to `ready` or `running`), a signal's or a reload's answer, a drain and
    /// an exit, a reply through the control socket, a message through the broker. A plain debug
    /// build does each in well under a second; 20 times that is still under 20 s, and the rest
    /// is room for a run descheduled under load.
    /// Under emulation (`Emulation.isActive`: qemu-user, the aarch64 tests) ten times that: the
    /// whole package runs at once on two threads there, and a test waiting for a daemon is
    /// itself descheduled for minutes behind CPU-bound tests.
    package static let daemon: Duration = Emulation.scaled(.seconds(30), by: 10)

    /// A hand-over between threads that a lost wake-up or a lost entry would make last for ever
    /// (a ring no sleeper hears, an entry no consumer sees, a timer a loop slept past): the
    /// stress tests of the lock-free parts wait this long for each. Microseconds in a plain run;
    /// under a sanitizer on a loaded machine, or under qemu (about 5 times slower), a thread may
    /// be descheduled for seconds. Only a broken run waits it out.
    /// Ten times that under emulation, as `daemon`.
    package static let handOver: Duration = Emulation.scaled(.seconds(60), by: 10)
}


extension Duration {
    /// When this long from now is, for a `DispatchSemaphore`'s or a `DispatchGroup`'s wait.
    package var fromNow: DispatchTime {
        .now() + .nanoseconds(Int(clamping: components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000))
    }
}
