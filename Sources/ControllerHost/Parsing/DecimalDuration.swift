/// Exact decimal-to-`Duration` conversion, shared by board durations ("0.5s") and scenario times
/// ("0.1").
///
/// Digits are read by hand instead of going through `Double` because 0.1 has no binary
/// representation: a scenario step at "0.1" must land on exactly 100 ms of virtual time, or an
/// `expect` written for that instant would race the event it checks.
package enum DecimalDuration {
    /// Why a number was refused; callers turn this into a message that names their own context.
    package enum Failure: Error, Equatable {
        /// Not `digits` or `digits.digits`.
        case notADecimal
        /// More fractional digits than whole nanoseconds can hold.
        case finerThanNanoseconds
        /// Longer than the caller's limit.
        case tooLarge
    }

    /// Parses `text` (`12`, `0.5`, `3.250`) as a count of units that are each `10^unitExponent`
    /// nanoseconds long (0 for ns, 3 for µs, 6 for ms, 9 for s), refusing anything longer than
    /// `limit` (however many digits it has: nothing here can overflow).
    package static func parse(_ text: Substring, unitExponent: Int, limit: Duration) -> Result<Duration, Failure> {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : nil
        guard !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return .failure(.notADecimal) }
        if let fraction, fraction.isEmpty || !fraction.allSatisfy(\.isASCIIDigit) {
            return .failure(.notADecimal)
        }

        var units: Int64 = 0
        for digit in whole {
            let (times10, overflow1) = units.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.addingReportingOverflow(Int64(digit.asciiDigitValue))
            if overflow1 || overflow2 { return .failure(.tooLarge) }
            units = next
        }
        let unitNanoseconds = power10(unitExponent)
        let (wholeNanoseconds, overflow) = units.multipliedReportingOverflow(by: unitNanoseconds)
        if overflow { return .failure(.tooLarge) }

        // Trailing zeros carry no precision ("0.500s" is 0.5 s), so they must not make a value
        // look finer than a nanosecond.
        let significant = (fraction ?? "").reversed().drop(while: { $0 == "0" }).reversed()
        guard significant.count <= unitExponent else { return .failure(.finerThanNanoseconds) }
        var fractionValue: Int64 = 0
        for digit in significant { fractionValue = fractionValue * 10 + Int64(digit.asciiDigitValue) }
        let fractionNanoseconds = fractionValue * power10(unitExponent - significant.count)

        let (total, overflowSum) = wholeNanoseconds.addingReportingOverflow(fractionNanoseconds)
        if overflowSum || Duration.nanoseconds(total) > limit { return .failure(.tooLarge) }
        return .success(.nanoseconds(total))
    }

    /// The units a duration may end in, with their exponents (ns 0, us 3, ms 6, s 9).
    package static let unitNames = ["ns", "us", "ms", "s"]

    /// Why `text` is not `number unit` (`5s`, `0.5ms`), in the words a person reading the file
    /// needs: `"+5s"` has a sign, `"5_000ms"` a digit separator, `"1e400s"` an exponent, `"0x5s"`
    /// is hexadecimal, `"5 s"` has a space, `"5sec"` ends in something that is not a unit, `"5"`
    /// has none. The text is quoted escaped and bounded.
    package static func unitProblem(_ text: String) -> String {
        let quoted = "\"\(text.shown)\""
        let number = text.prefix(while: { $0.isASCIIDigit || $0 == "." })
        let rest = text[number.endIndex...]
        if text.hasPrefix("+") { return "\(quoted) starts with a sign: write the number alone (\(String(text.dropFirst()).shown))" }
        if number.isEmpty, let first = text.first, !first.isASCIIDigit {
            return "\(quoted) does not start with a number"
        }
        if number == "0", rest.hasPrefix("x") || rest.hasPrefix("X") || rest.hasPrefix("b") || rest.hasPrefix("o") {
            return "\(quoted) is not a decimal number: write it in decimal digits"
        }
        if rest.hasPrefix("_") || rest.hasPrefix(",") || rest.hasPrefix("'") {
            return "\(quoted) has a digit separator (\(rest.first!)): write the digits together"
        }
        if rest.hasPrefix("e") || rest.hasPrefix("E"), rest.dropFirst().first.map({ $0.isASCIIDigit || $0 == "+" || $0 == "-" }) ?? false {
            return "\(quoted) has an exponent: write the digits out"
        }
        if rest.first?.isWhitespace ?? false { return "\(quoted) has a space before its unit: write them together" }
        if rest.isEmpty { return "\(quoted) has no unit" }
        return "\(quoted) ends in \"\(String(rest).shown)\", which is not a unit (\(unitNames.joined(separator: ", ")))"
    }

    private static func power10(_ exponent: Int) -> Int64 {
        var result: Int64 = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }
}

extension Character {
    /// Only 0-9: `Character.isNumber` would also accept "½" or Arabic-Indic digits.
    package var isASCIIDigit: Bool { asciiValue.map { (0x30...0x39).contains($0) } ?? false }

    fileprivate var asciiDigitValue: UInt8 { asciiValue! - 0x30 }
}

extension Duration {
    /// Seconds with up to 6 decimals, trailing zeros dropped ("0.0131", "5", "12.5"); finer
    /// digits are cut off (rounded towards zero).
    public var secondsText: String {
        Self.decimalSeconds(nanosecondCount / 1_000, digits: 6)
    }

    /// Seconds with up to 6 decimals, rounded up to the next microsecond: for a time written
    /// as the earliest that works ("move it to …", a recorded pulse), which rounding down would
    /// make too early.
    package var secondsTextRoundedUp: String {
        let nanoseconds = nanosecondCount
        let micros = nanoseconds / 1_000 + (nanoseconds % 1_000 > 0 ? 1 : 0)
        return Self.decimalSeconds(micros, digits: 6)
    }

    /// Seconds to the nanosecond, trailing zeros dropped: a value read back must be the same
    /// value (a recorded timing).
    package var exactSecondsText: String {
        Self.decimalSeconds(nanosecondCount, digits: 9)
    }

    /// The shortest whole number of a unit, as a board file writes a default: "5s", "500ms",
    /// "50us"; a duration that is no whole number of microseconds in nanoseconds.
    package var exampleText: String {
        let nanoseconds = nanosecondCount
        for (unit, size) in [("s", Int64(1_000_000_000)), ("ms", 1_000_000), ("us", 1_000)] where nanoseconds % size == 0 {
            return "\(nanoseconds / size)\(unit)"
        }
        return "\(nanoseconds)ns"
    }

    private static func decimalSeconds(_ units: Int64, digits unitDigits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<unitDigits { scale *= 10 }
        let whole = units / scale
        var fraction = units % scale
        if fraction == 0 { return "\(whole)" }
        var digits = unitDigits
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let text = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }
}
