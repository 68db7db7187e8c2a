/// Columns of plain text, for the daemon's log and the tables the commands print.
extension String {
    /// Right-aligned in `width` characters.
    package func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: Swift.max(0, width - count)) + self
    }

    /// Padded with spaces to `width` (at least one space after).
    package func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, width - count))
    }
}
