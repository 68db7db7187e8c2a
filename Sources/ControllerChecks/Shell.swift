import Foundation

/// Quoting for a POSIX shell.
public enum Shell {
    /// `text` in single quotes, each `'` in it written `'\''`.
    public static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
