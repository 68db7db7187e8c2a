import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reading a child's output in a test. Foundation's `readDataToEndOfFile()` and `availableData`
/// trap when `read(2)` fails, `EINTR` included, and a trap ends the whole test run, not the one
/// test: under qemu-user (the aarch64 tests, scripts/arm64/check.sh) a signal arriving during a
/// read, a child's `SIGCHLD`, makes it return `EINTR`. Here a read interrupted by a signal is
/// made again, and any other failure ends what was read (the test then fails on what is
/// missing, naming it).
extension FileHandle {
    /// Bytes asked for by one `read(2)`.
    private static let readChunkBytes = 64 * 1024

    /// Everything until end of file.
    package func readToEndRetryingInterrupts() -> Data {
        var data = Data()
        while true {
            let chunk = readRetryingInterrupts()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What one read gives: waits for at least a byte; empty at end of file (or on a failure).
    package func readRetryingInterrupts() -> Data {
        var buffer = [UInt8](repeating: 0, count: Self.readChunkBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count < 0 && errno == EINTR { continue }
            return Data()
        }
    }
}
