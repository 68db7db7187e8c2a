/// How much of a person's input a message quotes back. A message names what is wrong so that
/// it can be found in the file; a 15 MB token, quoted whole, would bury the message (and the
/// terminal or journal it goes to) instead.
public enum Quoting {
    /// The most characters of one token a message quotes; past it, an ellipsis and the length.
    public static let maxQuotedCharacters = 64
}

extension StringProtocol {
    /// The text as a message quotes it, without the quotes: at most
    /// ``Quoting/maxQuotedCharacters`` characters, then `… (N bytes)` saying how long it really is.
    /// Invisible characters are escaped later, where the whole message is
    /// (``FileProblem/description``).
    public var bounded: String {
        guard let end = index(startIndex, offsetBy: Quoting.maxQuotedCharacters, limitedBy: endIndex), end != endIndex else {
            return String(self)
        }
        return String(self[..<end]) + "… (\(utf8.count) bytes)"
    }
}
