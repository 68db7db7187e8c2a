/// What identifies a chip, as `gpiodetect` shows it.
public struct GPIOChipInfo: Hashable, Sendable, CustomStringConvertible {
    /// The kernel's name for the chip, e.g. `gpiochip0`; it can change between kernels.
    public var name: String
    /// The driver's label, e.g. `pinctrl-rp1`; the stable way for a board to find its chip.
    public var label: String
    /// The character device, e.g. `/dev/gpiochip0`.
    public var path: String
    /// How many lines the chip has; offsets run from 0 to `lineCount - 1`.
    public var lineCount: Int

    public init(name: String, label: String, path: String, lineCount: Int) {
        self.name = name
        self.label = label
        self.path = path
        self.lineCount = lineCount
    }

    /// `gpiochip0 [pinctrl-rp1] (54 lines, /dev/gpiochip0)`, like `gpiodetect`.
    public var description: String { "\(name) [\(label)] (\(lineCount) lines, \(path))" }
}
