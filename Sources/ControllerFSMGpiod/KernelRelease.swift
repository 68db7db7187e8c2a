/// A kernel release as `uname -r` gives it, compared by its leading `major.minor`.
struct KernelRelease: CustomStringConvertible {
    let text: String
    let major: Int
    let minor: Int

    init(_ text: String) {
        self.text = text
        let numbers = text.split(whereSeparator: { !$0.isNumber }).prefix(2).map { Int($0) ?? 0 }
        major = numbers.first ?? 0
        minor = numbers.count > 1 ? numbers[1] : 0
    }

    static var running: KernelRelease { KernelRelease(Syscalls.kernelRelease()) }

    /// Whether this release is older than `major.minor`.
    func isOlder(than major: Int, _ minor: Int) -> Bool {
        (self.major, self.minor) < (major, minor)
    }

    var description: String { text }
}

/// What the backend needs of the kernel, and since when it has it.
enum KernelFeature {
    /// Bias (pull-up / pull-down) on requested lines: Linux 5.5. (What each libgpiod
    /// generation needs as a whole comes from ``GpiodLibrary``.)
    static let bias = (major: 5, minor: 5)
}
