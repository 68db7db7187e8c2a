import Logging
import Testing
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

extension ControlServerTests {
    /// The log handler's write to standard error, failed on purpose: a line that cannot be
    /// written is dropped after one try, never retried in a loop. Failed at the handler's own
    /// descriptor: every other logger in the process writes on.
    @Suite("Log handler faults")
    final class PlainLogHandlerFaultTests {
        /// Standard error, as the handler sees it: a pipe the test reads.
        let stderrRead: Int32
        let stderrWrite: Int32
        let logger: Logger

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            stderrRead = ends[0]
            stderrWrite = ends[1]
            _ = fcntl(stderrRead, F_SETFL, O_NONBLOCK)
            let descriptor = stderrWrite
            logger = Logger(label: "test") { PlainLogHandler(label: $0, journal: true, descriptor: descriptor) }
        }

        /// Where the handler's writes are failed: its descriptor.
        var place: Syscalls.Place { .descriptor(stderrWrite) }

        deinit {
            Syscalls.disarm(at: place)
            close(stderrRead)
            close(stderrWrite)
        }

        /// What the handler wrote so far.
        private func written() -> String {
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = bytes.withUnsafeMutableBytes { read(stderrRead, $0.baseAddress, $0.count) }
            return count <= 0 ? "" : String(decoding: bytes[..<count], as: UTF8.self)
        }

        @Test func aLineThatCannotBeWrittenIsDroppedAfterOneTry() {
            Syscalls.arm(.logWrite, at: place, errno: EPIPE, count: 3)
            logger.warning("lost")
            #expect(Syscalls.pending(.logWrite, at: place) == 2, "one write, not a retry loop")
            #expect(written() == "")

            Syscalls.disarm(at: place)
            logger.warning("after")
            #expect(written() == "<4>after\n")
        }

        @Test func aWriteInterruptedByASignalIsMadeAgain() {
            Syscalls.arm(.logWrite, at: place, errno: EINTR)
            logger.error("interrupted")
            #expect(written() == "<3>interrupted\n")
        }
    }
}
