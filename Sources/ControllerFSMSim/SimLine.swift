import ControllerFSM

/// One line of a ``SimChip``, and how the simulated device on it is wired.
public struct SimLine: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The line's name on the chip (e.g. `GPIO17`), or `nil` for an unnamed line.
    public var name: String?
    /// `true` when the device pulls the line *low* when active (an open-collector sensor, a
    /// button to ground). The driver API speaks of the device being active; this says which
    /// wire level that is. A request reads it as active when its own `activeLow` matches.
    public var activeLow: Bool

    public init(_ name: String?, activeLow: Bool = false) {
        self.name = name
        self.activeLow = activeLow
    }

    public init(stringLiteral name: String) { self.init(name) }
}

/// A change of an output line, as a ``SimChip`` reports it to its sink.
public struct SimOutputChange: Hashable, Sendable {
    /// The virtual time of the write.
    public var time: MachineInstant
    public var offset: GPIOLineOffset
    public var name: String?
    /// The logical value: `true` = asserted.
    public var value: Bool
    /// The wire level after the request's active-low inversion.
    public var isHigh: Bool

    public init(time: MachineInstant, offset: GPIOLineOffset, name: String?, value: Bool, isHigh: Bool) {
        self.time = time
        self.offset = offset
        self.name = name
        self.value = value
        self.isHigh = isHigh
    }
}
