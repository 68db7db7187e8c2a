#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard error as a `TextOutputStream`, for `print(_:to:)`. It writes to the file descriptor
/// because Swift 6 treats the C `stderr` global as unsafe shared mutable state.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        writeToStandardError(string)
    }
}

private func writeToStandardError(_ string: String) {
    var text = string
    text.withUTF8 { bytes in
        _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count)
    }
}
