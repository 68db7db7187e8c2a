/// The longest times and durations a board file or a scenario may give. Far inside the runtime's
/// 64-bit nanosecond clock (about 292 years), so no sum of them can wrap.
package enum TimeLimits {
    /// A scenario's times, an input's hold and its end: ten years of virtual time is plenty (a soak
    /// of a billion events covers about eight).
    package static let scenarioTime = Duration.seconds(10 * 365 * 24 * 3600)
    /// A board's timings (an application's settings, output pulses) and simulated pulse widths: a day.
    package static let boardTiming = Duration.seconds(24 * 3600)
    /// A debounce period or a bounce window: a second is already far longer than any contact
    /// bounces (a few milliseconds).
    static let debounce = Duration.seconds(1)

    /// `10 years`, `1 day`, `1 s`: as messages name a limit.
    package static func describe(_ limit: Duration) -> String {
        switch limit {
        case scenarioTime: "10 years (\(limit.components.seconds) s)"
        case boardTiming: "a day (\(limit.components.seconds) s)"
        default: "\(limit.secondsText) s"
        }
    }
}
