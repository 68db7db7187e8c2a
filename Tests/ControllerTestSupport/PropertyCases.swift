/// How many random cases (or batches of them) a property test runs, by where the suite runs.
/// Every case runs natively, on the suite's AddressSanitizer build included; elsewhere a run
/// takes a part of them, as its own cost and what it can add decide:
///
/// - under emulation (``Emulation/isActive``: the aarch64 build under qemu-user) a twentieth.
///   A case costs 10–50 times its native time there, and a hundred of them once held both of the
///   pool's threads for 25 minutes, every other test waiting; what the run adds is the same
///   property on the code the compiler made for aarch64, which a few cases show as well as all.
/// - under ThreadSanitizer (built with `CONTROLLERFSM_THREAD_SANITIZED`, scripts/sanitize.sh) a
///   fifth. TSan looks for races between threads, and a property's cases are one thread's work,
///   over and over (the store's own threads are met in the first cases as in the last); they were
///   153 of its suite's 660 seconds.
package enum PropertyCases {
    /// `count` natively; a part of it, at least one, under emulation or ThreadSanitizer.
    package static func count(_ count: Int) -> Int {
        divisor == 1 ? count : max(1, count / divisor)
    }

    /// The part of ``count(_:)`` a run takes: 1 in `divisor`.
    package static var divisor: Int {
        if Emulation.isActive { return emulatedDivisor }
        #if CONTROLLERFSM_THREAD_SANITIZED
        return threadSanitizedDivisor
        #else
        return 1
        #endif
    }

    static let emulatedDivisor = 20
    static let threadSanitizedDivisor = 5
}
