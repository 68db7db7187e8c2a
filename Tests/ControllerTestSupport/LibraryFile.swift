import Foundation

/// The file of a shared library the loader would open for a program of this test's own
/// processor, for a test that covers it (with /dev/null, in a mount namespace of its own) to see
/// a program run without it.
package enum LibraryFile {
    /// The multiarch directory name of this process's processor: the daemon a test starts is
    /// built for the same one. (Under qemu-user the test runs in the SDK's x86_64 root, which
    /// has x86_64 libraries of the same names: those are not the ones the aarch64 daemon loads.)
    #if arch(x86_64)
    static let multiarch = "x86_64-linux-gnu"
    #elseif arch(arm64)
    static let multiarch = "aarch64-linux-gnu"
    #else
    static let multiarch = "unknown"
    #endif

    /// The file the loader would open for `soname`, symbolic links followed, as `mount` and
    /// `unshare` (programs of this machine) name it; nil when it is not installed.
    package static func resolved(_ soname: String) -> String? {
        for directory in ["/lib/\(multiarch)", "/usr/lib/\(multiarch)"] {
            let path = directory + "/" + soname
            if FileManager.default.fileExists(atPath: path) { return onThisMachine(URL(fileURLWithPath: path).resolvingSymlinksInPath().path) }
        }
        return nil
    }

    /// Where `path`, as this test and the daemon's loader see it, is for `unshare` and `mount`.
    /// The same path, but under qemu-user (the aarch64 tests run on an x86_64 machine): there
    /// every path a program opens is looked for under QEMU_LD_PREFIX first, and the libraries
    /// are found there, so that is the file to cover.
    package static func onThisMachine(_ path: String) -> String {
        guard let prefix = ProcessInfo.processInfo.environment["QEMU_LD_PREFIX"], !prefix.isEmpty else { return path }
        let prefixed = prefix + path
        return FileManager.default.fileExists(atPath: prefixed) ? prefixed : path
    }
}
