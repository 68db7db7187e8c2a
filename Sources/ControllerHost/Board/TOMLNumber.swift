/// TOML 1.0's integers and floats, from the bytes of one token: `_` only between digits, no
/// leading zeros, hex, octal and binary without a sign, and nothing that does not fit in 64 bits.
enum TOMLNumber {
    struct Problem: Error {
        var reason: String
    }

    static func parse(_ token: ArraySlice<UInt8>) -> Result<TOMLValue, Problem> {
        let text = String(decoding: token, as: UTF8.self).bounded
        let invalid = Problem(reason: "error while parsing number: \"\(text)\" is not an integer or a floating-point number")
        var digits = token
        var negative = false
        if let sign = digits.first, sign == ASCII.plus || sign == ASCII.minus {
            negative = sign == ASCII.minus
            digits = digits.dropFirst()
        }
        if digits.count > 2, digits.first == ASCII.zero, let radix = radix(digits[digits.startIndex + 1]) {
            guard digits.count == token.count else { return .failure(invalid) }  // no sign on these
            return integer(digits.dropFirst(2), radix: radix, negative: false, text: text).map(TOMLValue.integer)
        }
        if digits.contains(where: { $0 == ASCII.dot || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            return float(token, digits: digits, text: text, invalid: invalid)
        }
        guard isDigitRun(digits, radix: 10) else { return .failure(invalid) }
        guard !hasLeadingZero(digits) else {
            return .failure(Problem(reason: "error while parsing integer: \"\(text)\" has a leading zero, which TOML does not allow"))
        }
        return integer(digits, radix: 10, negative: negative, text: text).map(TOMLValue.integer)
    }

    private static func radix(_ letter: UInt8) -> UInt64? {
        switch letter {
        case UInt8(ascii: "x"): 16
        case UInt8(ascii: "o"): 8
        case UInt8(ascii: "b"): 2
        default: nil
        }
    }

    /// The value of `digits`, or why it has none: overflow is refused, never wrapped or trapped.
    private static func integer(_ digits: ArraySlice<UInt8>, radix: UInt64, negative: Bool, text: String) -> Result<Int, Problem> {
        guard isDigitRun(digits, radix: radix) else {
            return .failure(Problem(reason: "error while parsing number: \"\(text)\" is not an integer or a floating-point number"))
        }
        // The magnitude the sign allows: Int.min's has no positive Int.
        let limit = negative ? UInt64(Int.max) + 1 : UInt64(Int.max)
        var magnitude: UInt64 = 0
        for byte in digits where byte != ASCII.underscore {
            let (shifted, overflowShift) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(UInt64(digitValue(byte) ?? 0))
            guard !overflowShift, !overflowAdd, sum <= limit else {
                return .failure(Problem(reason: "error while parsing integer: \(text) does not fit in 64 bits"))
            }
            magnitude = sum
        }
        if negative { return .success(magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)) }
        return .success(Int(magnitude))
    }

    /// `1.5`, `-2e10`, `6.626e-34`: an integer part, then a fraction, an exponent or both.
    private static func float(_ token: ArraySlice<UInt8>, digits: ArraySlice<UInt8>, text: String,
                              invalid: Problem) -> Result<TOMLValue, Problem> {
        let exponentStart = digits.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = digits[..<(exponentStart ?? digits.endIndex)]
        let point = mantissa.firstIndex(of: ASCII.dot)
        let whole = mantissa[..<(point ?? mantissa.endIndex)]
        guard isDigitRun(whole, radix: 10), !hasLeadingZero(whole) else { return .failure(invalid) }
        if let point, !isDigitRun(mantissa[(point + 1)...], radix: 10) { return .failure(invalid) }
        if let exponentStart {
            var exponent = digits[(exponentStart + 1)...]
            if let sign = exponent.first, sign == ASCII.plus || sign == ASCII.minus { exponent = exponent.dropFirst() }
            guard isDigitRun(exponent, radix: 10) else { return .failure(invalid) }
        }
        guard let value = Double(String(decoding: token.filter { $0 != ASCII.underscore }, as: UTF8.self)) else {
            return .failure(invalid)
        }
        guard value.isFinite else {
            return .failure(Problem(reason: "error while parsing number: \(text) is too large for a floating-point number"))
        }
        return .success(.float(value))
    }

    /// Digits of `radix`, at least one, with `_` only between two of them.
    private static func isDigitRun(_ digits: ArraySlice<UInt8>, radix: UInt64) -> Bool {
        guard let first = digits.first, let last = digits.last, first != ASCII.underscore, last != ASCII.underscore else { return false }
        var previous: UInt8 = 0
        for byte in digits {
            if byte == ASCII.underscore {
                guard previous != ASCII.underscore else { return false }
            } else {
                guard let value = digitValue(byte), UInt64(value) < radix else { return false }
            }
            previous = byte
        }
        return true
    }

    private static func hasLeadingZero(_ digits: ArraySlice<UInt8>) -> Bool {
        digits.count > 1 && digits.first == ASCII.zero
    }

    private static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
