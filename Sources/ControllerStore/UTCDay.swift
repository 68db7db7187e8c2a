/// A calendar day in UTC, as the store's daily totals name it: `YYYY-MM-DD`.
///
/// Days are UTC so a total never moves between days when the site's time zone or daylight
/// saving changes; a report in local time is the reader's business.
public struct UTCDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let daysSinceEpoch: Int64

    static let nanosecondsPerDay: Int64 = 86_400_000_000_000

    public init(daysSinceEpoch: Int64) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// The day that contains `unixNanoseconds` (nanoseconds since 1970-01-01 00:00 UTC).
    public init(unixNanoseconds: Int64) {
        // Floor division, so an instant before 1970 falls on the day before, not on day 0.
        let (quotient, remainder) = unixNanoseconds.quotientAndRemainder(dividingBy: Self.nanosecondsPerDay)
        daysSinceEpoch = remainder < 0 ? quotient - 1 : quotient
    }

    /// Parses `YYYY-MM-DD` (a real calendar date); `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year)
        else { return nil }
        daysSinceEpoch = Self.days(year: year, month: month, day: day)
    }

    /// The first instant of the day, in nanoseconds since 1970-01-01 00:00 UTC.
    public var startUnixNanoseconds: Int64 { daysSinceEpoch * Self.nanosecondsPerDay }

    public var description: String {
        let (year, month, day) = Self.civil(fromDays: daysSinceEpoch)
        return "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2))"
    }

    public static func < (lhs: UTCDay, rhs: UTCDay) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func isLeap(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // The proleptic Gregorian conversions of Howard Hinnant's `days_from_civil` and
    // `civil_from_days` (http://howardhinnant.github.io/date_algorithms.html): exact for every
    // day, no calendar object or time zone database needed.
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
