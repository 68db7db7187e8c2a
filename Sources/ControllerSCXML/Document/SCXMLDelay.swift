/// A literal `delay` of `<send>`: CSS2 time, a decimal number and `s` or `ms` (`1s`, `.5s`,
/// `2.25s`, `500ms`), in nanoseconds; nil when it is not one.
enum SCXMLDelay {
    private static let nanosecondsPerSecond: Int64 = 1_000_000_000
    private static let nanosecondsPerMillisecond: Int64 = 1_000_000
    /// Digits before the point: 10^9 seconds still fit in nanoseconds (the day's bound,
    /// `SCXMLLimits.maximumDelayNanoseconds`, is checked by the reader).
    private static let maximumWholeDigits = 9

    static func nanoseconds(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespace
        let (number, unit): (Substring, Int64)
        if trimmed.hasSuffix("ms") {
            (number, unit) = (trimmed.dropLast(2), nanosecondsPerMillisecond)
        } else if trimmed.hasSuffix("s") {
            (number, unit) = (trimmed.dropLast(1), nanosecondsPerSecond)
        } else {
            return nil
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), (parts.count == 1 || !fraction.isEmpty),
              whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit),
              whole.count <= maximumWholeDigits else { return nil }
        let (wholeNanoseconds, overflow) = (Int64(whole) ?? 0).multipliedReportingOverflow(by: unit)
        if overflow { return nil }
        // The fraction, digit by digit: exact to the nanosecond; finer digits are refused rather
        // than rounded.
        var result = wholeNanoseconds
        var scale = unit
        for digit in fraction {
            scale /= 10
            let value = Int64(digit.asciiValue! - UInt8(ascii: "0"))
            if scale == 0 {
                guard value == 0 else { return nil }
                continue
            }
            result += value * scale
        }
        return result
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    /// The text without spaces, tabs and line ends at either end.
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return Substring(self[first...last])
    }
}
