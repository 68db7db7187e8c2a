extension String {
    /// The text with every control and other invisible character written as an escape
    /// (`\0`, `\u{FEFF}`), so that an error quoting a bad file shows what is really there and
    /// never sends raw control codes to a terminal. Unbounded: for text the program composed
    /// around quotes that are already bounded; text from outside goes through
    /// ``StringProtocol/shown`` or ``StringProtocol/shownLine`` (ShownText.swift).
    package var visible: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if scalar.isInvisible {
                result += ShownText.escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// A character that shows nothing of itself, or acts on the terminal instead: controls (C0,
    /// DEL and C1, which holds the 8-bit escape CSI), format characters (zero-width space, byte
    /// order mark, bidirectional overrides), line and paragraph separators, and code points
    /// with no character. Such text is escaped on the way out and refused in names.
    package var isInvisible: Bool {
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: true
        default: false
        }
    }
}
