/// How much of a person's input a message quotes back. A message names what is wrong so that
/// it can be found in the file; a 15 MB token, quoted whole, would bury the message (and the
/// terminal or journal it goes to) instead.
public enum Quoting {
    /// The most characters of one token a message quotes; past it, an ellipsis and the length.
    public static let maxQuotedCharacters = 64
    /// The most characters of one line a sink (the log, standard error, a status line) writes,
    /// escapes included: far past any message the program composes (its longest, a hint
    /// listing every command, is under 1,000), so only a line grown by text from outside is
    /// cut. journald itself splits lines at 48 KB; a screenful stays readable.
    public static let maxLineCharacters = 4_096
}

extension StringProtocol {
    /// The text as a message quotes it, without the quotes: at most
    /// ``Quoting/maxQuotedCharacters`` Unicode scalars (a character may hold any number of
    /// combining marks, so characters bound nothing), then `… (N bytes)` saying how long it
    /// really is. Invisible characters are left for the sink to escape; quoting text from
    /// outside, ``shown`` escapes them at once.
    public var bounded: String { ShownText.render(self, limit: Quoting.maxQuotedCharacters, escaping: false) }
}
