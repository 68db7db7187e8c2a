import ControllerFSM

#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header's text, as RFC 9110 (§5.6.7, IMF-fixdate) writes it: `Sun, 06 Nov 1994
/// 08:49:37 GMT`. An origin server with a clock sends one with each response (§6.6.1).
///
/// Made when a response asks and kept for the rest of its second, so a scrape of many requests
/// makes it once; nothing refreshes it while no request comes (Hummingbird's own `Application`
/// refreshes its copy every second for as long as it serves, a wake-up a second of an idle
/// daemon).
final class HTTPDate: Sendable {
    private let cached = Guarded<(second: Int, text: String)?>(nil)

    init() {}

    /// Now's text.
    func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        return cached.withLock { cached in
            if let cached, cached.second == second { return cached.text }
            let text = Self.text(unixSeconds: second)
            cached = (second, text)
            return text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The text of `unixSeconds` (seconds since 1970 UTC).
    static func text(unixSeconds: Int) -> String {
        var time = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(Int(parts.tm_year) + 1900)
        let paddedYear = String(repeating: "0", count: max(0, 4 - year.count)) + year
        return "\(days[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(paddedYear) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
