import ControllerFSM
#if canImport(Glibc)
import Glibc
#endif

/// A document's bytes, read by the loader itself rather than by libxml2: no further than one
/// byte past `SCXMLLimits.maximumDocumentBytes` (a larger file, `/dev/zero`, is not read
/// whole; `XMLBounds` then refuses it at the line the bound falls on), and a file that cannot
/// be read is refused with the system's reason ("No such file or directory"), which libxml2
/// would give only as "failed to load external entity".
enum DocumentFile {
    /// Bytes read at a time: a chart of a few hundred states in one read.
    static let readChunkBytes = 64 * 1_024

    static func bytes(of path: String) throws(SCXMLError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(file: path, reason: systemError()) }
        defer { close(descriptor) }
        let limit = SCXMLLimits.maximumDocumentBytes + 1
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: readChunkBytes)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(file: path, reason: systemError())
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    private static func systemError() -> String { SystemErrno.describe(errno) }
}
