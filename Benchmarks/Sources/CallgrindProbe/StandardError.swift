#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard error as a `TextOutputStream`, for `print(_:to:)`. It writes to the file descriptor:
/// the C `stderr` global is shared mutable state to Swift 6.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var text = string
        text.withUTF8 { bytes in
            _ = Glibc.write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
    }
}
