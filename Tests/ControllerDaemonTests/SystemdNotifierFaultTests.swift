import Dispatch
import Foundation
import Testing
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

extension ControlServerTests {
    /// systemd's notify socket, failed on purpose and for real (a queue nobody reads): the
    /// notifier never blocks the event loop, and counts what systemd did not get so the daemon
    /// can say so. Failed at this test's notify socket only.
    @Suite("systemd notifier faults")
    final class SystemdNotifierFaultTests {
        let scratch: ScratchDirectory
        let systemd: DatagramReceiver

        init() throws {
            scratch = try ScratchDirectory()
            systemd = try DatagramReceiver(path: scratch.path + "/notify.sock")
        }

        /// Where this test's notifier makes its calls: the socket it is given.
        var place: Syscalls.Place { .path(systemd.path) }

        deinit { Syscalls.disarm(at: place) }

        private func notifier() -> SystemdNotifier {
            SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "2000000"])
        }

        @Test func aFailedSendIsCountedWithItsReasonAndTheNextOneGoes() {
            let notifier = notifier()
            #expect(notifier.isActive && notifier.failedSends == 0 && notifier.lastFailureReason == nil)
            Syscalls.arm(.notifySend, at: place, errno: EAGAIN)
            notifier.watchdog()
            #expect(notifier.failedSends == 1)
            #expect(notifier.lastFailureReason == "Resource temporarily unavailable")
            #expect(systemd.next() == nil, "a lost message is not retried")

            notifier.watchdog()
            #expect(systemd.next() == "WATCHDOG=1")
            Syscalls.arm(.notifySend, at: place, errno: ECONNREFUSED)
            notifier.ready(status: "running")
            #expect(notifier.failedSends == 2)
            #expect(notifier.lastFailureReason == "Connection refused")
            notifier.status("degraded:\nchip gone")
            #expect(systemd.next() == "STATUS=degraded: chip gone")
        }

        /// Notifiers of the stress test below, each failing its first send on another thread.
        static let stressRounds = 200

        /// A failure's reason is stored before its count is, with release and acquire between:
        /// a reader (the daemon's reporter, on its own thread) that sees the count sees the
        /// reason. Each round is a fresh notifier, whose first failure is the only moment the
        /// reason could still be missing.
        @Test func stressAFailureSeenCountedIsSeenWithItsReason() {
            var reasonless = 0
            for _ in 0..<Self.stressRounds {
                let notifier = notifier()
                Syscalls.arm(.notifySend, at: place, errno: EAGAIN)
                let sent = DispatchSemaphore(value: 0)
                Thread {
                    notifier.watchdog()
                    sent.signal()
                }.start()
                let giveUp = Date().addingTimeInterval(TestTimeouts.reply)
                while notifier.failedSends == 0 && Date() < giveUp {}
                if notifier.lastFailureReason == nil { reasonless += 1 }
                #expect(sent.wait(timeout: .now() + TestTimeouts.reply) == .success)
            }
            #expect(reasonless == 0, "a failure was seen counted before its reason")
        }

        @Test func aSocketThatCannotBeMadeIsCountedAsAFailure() {
            Syscalls.arm(.notifySocket, at: place, errno: EMFILE)
            let notifier = notifier()
            #expect(!notifier.isActive)
            #expect(notifier.failedSends == 1)
            #expect(notifier.lastFailureReason == "Too many open files")
            notifier.watchdog()
            #expect(notifier.failedSends == 1)
        }

        @Test func aQueueSystemdDoesNotReadNeverBlocksTheWatchdog() {
            let notifier = notifier()
            let done = DispatchSemaphore(value: 0)
            Thread {
                for _ in 0..<1_000 { notifier.watchdog() }
                done.signal()
            }.start()
            // 1,000 failed sends take milliseconds, even under a sanitizer; a blocked one never
            // returns while nobody reads. The bound is room for a loaded machine (see
            // `TestTimeouts.reply`).
            let returned = done.wait(timeout: .now() + TestTimeouts.reply) == .success
            // Blocked after all: read for it until it returns, so the test ends.
            while !returned && done.wait(timeout: .now() + 0.01) == .timedOut {
                while systemd.next() != nil {}
            }
            #expect(returned, "watchdog() blocked on a full socket")
            #expect(notifier.failedSends > 0)
            #expect(notifier.lastFailureReason == "Resource temporarily unavailable")
        }
    }
}

/// systemd's end of the notify socket, in tests: a datagram socket bound at `path`.
final class DatagramReceiver {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = try #require(Syscalls.unixAddress(path))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): errno \(errno)")
    }

    deinit { close(descriptor) }

    /// The next datagram waiting, or nil when none is.
    func next() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }
}
