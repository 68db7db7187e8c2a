@testable import ControllerFSM
import ControllerTestSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
import Testing

/// The runtime's own futex lock: mutual exclusion, the try path, and waking a sleeping waiter.
/// A lost wake would leave a test asleep for ever: the time limit makes it a failure.
///
/// Its time limit catches a hang (a lock never released, a service that never stops), not
/// slowness: Swift Testing counts it from the test's start, including time spent waiting for a
/// thread of the cooperative pool — two threads on a 2-core machine, which other suites'
/// synchronous waits (processes, sockets) can hold for minutes under the sanitizers on a loaded
/// machine (a CI run failed three tests of this kind at a 60 s limit). Ten minutes is far past
/// any healthy run and well inside CI's own limit.
@Suite("MutexLock", .timeLimit(.minutes(Emulation.timeLimitMinutes(10))))
struct MutexLockTests {
    /// Counts threads inside the lock; a plain counter the lock alone protects.
    final class Occupancy: @unchecked Sendable {
        let inside = Atomic<Int>(0)
        let mostInsideAtOnce = Atomic<Int>(0)
        var unprotectedCount = 0
        /// Written by each holder, checked whole by the next: the lock's acquire and release
        /// hand the holder's writes over (six words, read back as written).
        var last = StressPayload(producer: 0, sequence: -1)
        var torn = 0

        /// Inside the lock: checks what the last holder wrote, then writes its own.
        func handOver(from holder: Int) {
            if !last.isWhole || last.sequence != UInt64(truncatingIfNeeded: unprotectedCount - 1) { torn += 1 }
            last = StressPayload(producer: holder, sequence: unprotectedCount)
            unprotectedCount += 1
        }

        func enter() {
            let now = inside.add(1, ordering: .relaxed).newValue
            mostInsideAtOnce.max(now, ordering: .relaxed)
        }

        func leave() { inside.subtract(1, ordering: .relaxed) }
    }

    static let threads = 4
    static let rounds = 20_000

    @Test("stress: threads contending for the lock are never inside together, no update is lost, and each holder sees the last one's writes whole")
    func stressMutualExclusion() {
        let lock = MutexLock()
        let occupancy = Occupancy()
        let rounds = Atomic<Int>(0)
        let deadline = StressDeadline()
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for _ in 0..<Self.rounds where !deadline.hasPassed {
                lock.withLock {
                    occupancy.enter()
                    occupancy.handOver(from: thread)
                    occupancy.leave()
                }
                rounds.add(1, ordering: .relaxed)
            }
        }
        #expect(occupancy.unprotectedCount == rounds.load(ordering: .relaxed))
        #expect(rounds.load(ordering: .relaxed) > 0)
        #expect(occupancy.torn == 0, "a holder saw the last one's writes torn or stale")
        #expect(occupancy.mostInsideAtOnce.load(ordering: .relaxed) == 1)
        #expect(lock.word.pointee.load(ordering: .relaxed) == MutexLock.unlocked)
    }

    @Test("withLockIfAvailable runs nothing while another thread holds the lock, and runs once it is free")
    func tryPath() {
        let lock = MutexLock()
        let release = DispatchSemaphore(value: 0)
        whileAnotherThread(holds: lock, doing: { release.wait() }) {
            #expect(lock.withLockIfAvailable { 1 } == nil)
            release.signal()
        }
        #expect(lock.withLockIfAvailable { 2 } == 2)
        #expect(lock.word.pointee.load(ordering: .relaxed) == MutexLock.unlocked)
    }

    @Test("a thread asleep waiting for the lock is woken when it is let go, and gets it only then")
    func sleepingWaiterIsWoken() {
        let lock = MutexLock()
        let occupancy = Occupancy()
        whileAnotherThread(holds: lock, doing: {
            occupancy.enter()
            // Long enough for the waiter below to go to sleep on the futex.
            waitUntil { lock.word.pointee.load(ordering: .relaxed) == MutexLock.lockedWithWaiters }
            occupancy.unprotectedCount += 1
            occupancy.leave()
        }) {
            lock.withLock {
                occupancy.enter()
                // The holder's update is seen: it let go before this ran.
                #expect(occupancy.unprotectedCount == 1)
                occupancy.unprotectedCount += 1
                occupancy.leave()
            }
        }
        #expect(occupancy.mostInsideAtOnce.load(ordering: .relaxed) == 1)
        #expect(occupancy.unprotectedCount == 2)
        #expect(lock.word.pointee.load(ordering: .relaxed) == MutexLock.unlocked)
    }

    @Test("a waiter woken early (a signal, a racing wake) looks again and does not take a held lock")
    func spuriousWakeupsAreTolerated() {
        let lock = MutexLock()
        let occupancy = Occupancy()
        let injected = 1_000
        Futex.spuriousWakeupsToInject.store(injected, ordering: .relaxed)
        defer { Futex.spuriousWakeupsToInject.store(0, ordering: .relaxed) }
        whileAnotherThread(holds: lock, doing: {
            occupancy.enter()
            // Hold on until the waiter has been woken early many times.
            waitUntil { Futex.spuriousWakeupsToInject.load(ordering: .relaxed) < injected / 2 }
            occupancy.leave()
        }) {
            lock.withLock {
                occupancy.enter()
                occupancy.leave()
            }
        }
        #expect(occupancy.mostInsideAtOnce.load(ordering: .relaxed) == 1)
        #expect(Futex.spuriousWakeupsToInject.load(ordering: .relaxed) < injected / 2)
    }
}

/// Runs `then` on this thread once another thread holds `lock` and is running `holding` in it;
/// returns when that thread has let go.
private func whileAnotherThread(holds lock: MutexLock, doing holding: @escaping @Sendable () -> Void, then: () -> Void) {
    let held = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) {
        lock.withLock {
            held.signal()
            holding()
        }
    }
    held.wait()
    then()
    done.wait()
}

/// Polls `condition` every millisecond, for at most ten seconds (then the test's own checks
/// fail rather than the run hanging). The conditions are another thread reaching a futex wait,
/// microseconds away: ten seconds is room for that thread descheduled on a loaded machine under
/// a sanitizer; the suite's one-minute limit bounds the rest.
private func waitUntil(_ condition: () -> Bool) {
    let step = 1_000_000
    let limit = 10_000
    var polls = 0
    while !condition() && polls < limit {
        polls += 1
        var pause = timespec(tv_sec: 0, tv_nsec: step)
        nanosleep(&pause, nil)
    }
}
