#if canImport(Glibc)
import Glibc
#endif

enum Terminal {
    /// Colour only for a terminal, and never under `NO_COLOR` set to anything but the empty string
    /// (https://no-color.org).
    static var wantsColor: Bool { wantsColor(on: STDOUT_FILENO) }

    /// Whether what goes to `descriptor` may be coloured: each stream is judged on its own, so
    /// a redirected standard error gets no escape codes when standard output is a terminal.
    static func wantsColor(on descriptor: Int32) -> Bool {
        guard Syscalls.isTerminal(descriptor) else { return false }
        guard let noColor = Syscalls.environment("NO_COLOR") else { return true }
        return noColor.isEmpty
    }

    static func error(_ message: String) {
        writeError("turnstiled: \(message)\n")
    }

    /// A log line for the daemon's operator, on standard error (the journal, under systemd).
    static func log(_ message: String) {
        writeError("turnstiled: \(message)\n")
    }

    /// Writes to standard error unbuffered, after flushing standard output (which a pipe
    /// buffers), so the two interleave in the order things happened.
    static func writeError(_ text: String) {
        Syscalls.flushAllStreams()
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Syscalls.writeStandardError(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset...])))
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// ANSI styles, applied only when colour is wanted.
struct Style {
    let enabled: Bool

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func cyan(_ text: String) -> String { wrap(text, "36") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
