extension String {
    /// The text with every control and other invisible character written as an escape
    /// (`\0`, `\u{FEFF}`), so that an error quoting a bad file shows what is really there and
    /// never sends raw control codes to a terminal.
    package var visible: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse:
                result += scalar == "\0" ? "\\0" : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
