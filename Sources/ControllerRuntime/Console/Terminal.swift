#if canImport(Glibc)
import Glibc
#endif
import ControllerHost

package enum Terminal {
    /// The command's name, which starts every message (`turnstiled: ...`): set once by
    /// ``ControllerCommand``'s `main` before anything is written.
    nonisolated(unsafe) package static var program = "controller"

    /// Colour only for a terminal, and never under `NO_COLOR` set to anything but the empty string
    /// (https://no-color.org).
    package static var wantsColor: Bool { wantsColor(on: STDOUT_FILENO) }

    /// Whether what goes to `descriptor` may be coloured: each stream is judged on its own, so
    /// a redirected standard error gets no escape codes when standard output is a terminal.
    package static func wantsColor(on descriptor: Int32) -> Bool {
        guard Syscalls.isTerminal(descriptor) else { return false }
        guard let noColor = Syscalls.environment("NO_COLOR") else { return true }
        return noColor.isEmpty
    }

    /// One line on standard error. The message is shown at this sink (``StringProtocol/shownLine``:
    /// escaped and bounded), whatever it quotes, so no caller can forget: an error's text from a
    /// file, a broker or a daemon can neither drive the terminal nor forge a second line.
    package static func error(_ message: String) {
        writeError("\(program): \(message.shownLine)\n")
    }

    /// A log line for the daemon's operator, on standard error (the journal, under systemd),
    /// shown as ``error(_:)`` shows its line.
    package static func log(_ message: String) {
        writeError("\(program): \(message.shownLine)\n")
    }

    /// Writes to standard error unbuffered, after flushing standard output (which a pipe
    /// buffers), so the two interleave in the order things happened.
    package static func writeError(_ text: String) {
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
package struct Style {
    package let enabled: Bool

    package init(enabled: Bool) { self.enabled = enabled }

    package func bold(_ text: String) -> String { wrap(text, "1") }
    package func dim(_ text: String) -> String { wrap(text, "2") }
    package func red(_ text: String) -> String { wrap(text, "31") }
    package func green(_ text: String) -> String { wrap(text, "32") }
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    package func cyan(_ text: String) -> String { wrap(text, "36") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
