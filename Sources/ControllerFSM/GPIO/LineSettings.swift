/// The pull resistor a line is requested with. The raw values are the spellings board files and
/// `turnstiled lines` use.
public enum LineBias: String, Hashable, Sendable, CaseIterable {
    /// Leave the bias as the firmware, a device-tree overlay or a previous user configured it.
    case asIs = "as-is"
    /// No pull resistor: the line floats unless something drives it.
    case disabled
    /// Pulled to the high level: the usual choice for a switch to ground (with active-low).
    case pullUp = "pull-up"
    /// Pulled to the low level.
    case pullDown = "pull-down"
}

/// How one input line is requested.
public struct InputLineSettings: Hashable, Sendable {
    public var offset: GPIOLineOffset
    /// When `true` a low level is the active one: reads return `true` and a *rising* edge is
    /// reported when the line goes low. This is the only inversion in the stack.
    public var activeLow: Bool
    public var bias: LineBias
    /// How long the line must stay at a new level before the change counts. Zero turns
    /// debouncing off. Whether the backend applies it or leaves it to ``EdgeDebouncer`` is
    /// told by ``GPIOInputRequest/edgesAreDebounced``.
    public var debounce: Duration

    public init(
        offset: GPIOLineOffset, activeLow: Bool = false, bias: LineBias = .asIs,
        debounce: Duration = .zero
    ) {
        self.offset = offset
        self.activeLow = activeLow
        self.bias = bias
        self.debounce = debounce
    }
}

extension InputLineSettings {
    /// The longest debounce period a request takes: what the kernel's `debounce_period_us` (a
    /// 32-bit count of microseconds, about 71 minutes) holds. Longer, it would wrap there into
    /// another period; board files are held to far less (a second).
    public static let maximumDebounce = Duration.microseconds(Int64(UInt32.max))

    /// Why `period` cannot be a line's debounce period, or nil when it can: the one rule every
    /// backend's request and the software debouncer hold it to.
    public static func debounceProblem(_ period: Duration) -> String? {
        if period < .zero { return "the debounce period \(period) is negative" }
        if period > maximumDebounce { return "the debounce period \(period) is longer than the longest the kernel takes, \(maximumDebounce)" }
        return nil
    }
}

/// How one output line is requested.
public struct OutputLineSettings: Hashable, Sendable {
    public var offset: GPIOLineOffset
    /// When `true`, writing `true` (asserted) drives the line low.
    public var activeLow: Bool
    /// The logical value the line takes the moment it is requested, before any write; choose
    /// the safe one, since the line is driven from then on.
    public var initialValue: Bool

    public init(offset: GPIOLineOffset, activeLow: Bool = false, initialValue: Bool = false) {
        self.offset = offset
        self.activeLow = activeLow
        self.initialValue = initialValue
    }
}
