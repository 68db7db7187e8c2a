import Foundation

/// Whether the tests run emulated: scripts/arm64/check.sh builds them for aarch64 and runs them
/// under qemu-user on an x86_64 machine, with CONTROLLER_TESTS_EMULATED=1. There every
/// instruction is translated (5–20 times slower than a Pi, and slower still when the machine is
/// busy), and a few things the kernel does for a native process qemu-user does its own way: a
/// test that meets one of them says which, and why it checks less under emulation.
package enum Emulation {
    package static let isActive = ProcessInfo.processInfo.environment["CONTROLLER_TESTS_EMULATED"] == "1"

    /// `duration` on a native run; `factor` times it under emulation (a bound on how long
    /// something takes, where emulation makes it take longer and the bound is not what is tested).
    package static func scaled(_ duration: Duration, by factor: Int) -> Duration {
        isActive ? duration * factor : duration
    }

    /// A suite's `.timeLimit`, in minutes: `minutes` natively, 6 times that under emulation.
    /// There every test of the package is started at once on the pool's two threads and each
    /// runs 5–20 times slower, so a CPU-bound test (the unsettled machines run to their bounds)
    /// spends most of its wall time waiting for its turn; the limit is there to stop a run
    /// that hangs, not to time it.
    package static func timeLimitMinutes(_ minutes: Int) -> Int {
        isActive ? minutes * 6 : minutes
    }
}
