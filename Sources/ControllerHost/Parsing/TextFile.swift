import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole text files for the board and scenario loaders.
///
/// Plain POSIX calls rather than Foundation so that a failure reads as the system states it
/// ("No such file or directory"), which is what a user fixing a path needs to see.
package enum TextFile {
    /// Why a file could not be read, as one lower-case phrase.
    package struct Failure: Error {
        package var reason: String
    }

    /// Bytes read at a time: a board file or a typical scenario in one read.
    static let readChunkBytes = 64 * 1024

    /// The contents of `path`, or of standard input when `path` is nil, refusing more than
    /// `limit` bytes (a file that is not what it should be — `/dev/zero`, a log — must not
    /// fill memory). A UTF-8 byte order mark at the start is dropped: editors add it, and it
    /// means nothing.
    package static func contents(path: String?, limit: Int) throws(Failure) -> String {
        var bytes = try self.bytes(path: path, limit: limit)
        if bytes.starts(with: byteOrderMark) { bytes.removeFirst(byteOrderMark.count) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure(reason: "is not UTF-8 text")
        }
        return text
    }

    /// The bytes of `path`, or of standard input when `path` is nil, refusing more than `limit`
    /// bytes. `regularFileOnly`: refuse anything but a regular file — a secret or a certificate
    /// read at start-up, where a FIFO would hold the start for ever; a board or a scenario may
    /// come through a pipe (`--board <(…)`).
    package static func bytes(path: String?, limit: Int, regularFileOnly: Bool = false) throws(Failure) -> [UInt8] {
        let descriptor: Int32
        if let path {
            // Non-blocking when only a regular file will do: a FIFO is then refused, not waited on.
            descriptor = FileSyscalls.openForReading(path, nonBlocking: regularFileOnly)
            guard descriptor >= 0 else { throw Failure(reason: "cannot open: \(systemError())") }
        } else {
            descriptor = STDIN_FILENO
        }
        defer { if path != nil { FileSyscalls.close(descriptor) } }
        if regularFileOnly {
            guard let regular = FileSyscalls.isRegularFile(descriptor) else { throw Failure(reason: "cannot read: \(systemError())") }
            guard regular else { throw Failure(reason: "is not a regular file") }
        }

        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        while true {
            let count = chunk.withUnsafeMutableBytes { FileSyscalls.read(descriptor, into: $0) }
            if count < 0 {
                if SystemErrno.current == EINTR { continue }
                throw Failure(reason: "cannot read: \(systemError())")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { throw Failure(reason: "is larger than \(sizeText(limit)), too large for this kind of file") }
        }
        return bytes
    }

    /// A limit as a person reads it: in KiB when it is a whole number of them, else in bytes.
    private static func sizeText(_ bytes: Int) -> String {
        bytes >= 1024 && bytes % 1024 == 0 ? "\(bytes / 1024) KiB" : "\(bytes) bytes"
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private static func systemError() -> String {
        SystemErrno.describe(SystemErrno.current)
    }
}
