import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few system calls the backend makes itself (libgpiod makes the rest), behind one thin
/// layer as swift-system does, so they are found in one place.
enum Syscalls {
    /// The calling thread's `errno`.
    static var errno: Int32 { SystemErrno.current }

    /// The entries of directory `path`, or `nil` when it cannot be read.
    static func directoryEntries(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = string(entry.pointee.d_name)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The value of environment variable `name`, or `nil` when it is not set.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The running kernel's release (`uname -r`), e.g. `6.1.0-26-amd64`.
    static func kernelRelease() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        return string(names.release)
    }

    /// The text in a fixed-size C `char` array (a struct member), up to its NUL.
    static func string<CharArray>(_ array: CharArray) -> String {
        withUnsafeBytes(of: array) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
