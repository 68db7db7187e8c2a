#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's `errno` and the system's words for it, shared by the other targets'
/// system call layers (the loaders', the store's, the simulation's, the executable's) so that
/// each does not keep its own copy. `package`: not part of the library's API.
package enum SystemErrno {
    /// The calling thread's `errno`. A layer sets it when a test makes a call fail, so the
    /// caller reads the injected failure exactly as it would read the kernel's.
    package static var current: Int32 {
        get {
            #if canImport(Glibc)
            Glibc.errno
            #elseif canImport(Musl)
            Musl.errno
            #else
            Darwin.errno
            #endif
        }
        set {
            #if canImport(Glibc)
            Glibc.errno = newValue
            #elseif canImport(Musl)
            Musl.errno = newValue
            #else
            Darwin.errno = newValue
            #endif
        }
    }

    /// The system's text for `code`, e.g. "No such file or directory".
    package static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
