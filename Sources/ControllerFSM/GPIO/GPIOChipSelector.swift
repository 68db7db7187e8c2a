/// How a board names its chip: by label (stable across kernels), by name or by path.
///
/// A Raspberry Pi 5's header is on the chip labelled `pinctrl-rp1`, which is `gpiochip4` on
/// early kernels and `gpiochip0` on later ones; selecting by label survives that change.
public enum GPIOChipSelector: Hashable, Sendable, CustomStringConvertible {
    case label(String)
    case name(String)
    case path(String)

    /// Reads a board file's `chip` setting: a path (`/dev/gpiochip4`), a kernel name
    /// (`gpiochip4`) or, anything else, a label (`pinctrl-rp1`).
    public init(parsing text: String) {
        if text.hasPrefix("/") {
            self = .path(text)
        } else if text.hasPrefix("gpiochip"), !text.dropFirst(8).isEmpty, text.dropFirst(8).allSatisfy(\.isASCIIDigit) {
            self = .name(text)
        } else {
            self = .label(text)
        }
    }

    /// The text it was read from: the path, name or label itself.
    public var text: String {
        switch self {
        case .label(let text), .name(let text), .path(let text): text
        }
    }

    /// Whether the chip described by `info` is the one selected.
    public func matches(_ info: GPIOChipInfo) -> Bool {
        switch self {
        case .label(let label): info.label == label
        case .name(let name): info.name == name
        case .path(let path): info.path == path
        }
    }

    /// The first chip that matches.
    /// - Throws: ``GPIOError/chipNotFound(lookedFor:available:program:)`` listing every chip offered.
    public func select<Chip: GPIOChip>(from chips: [Chip]) throws(GPIOError) -> Chip {
        if let chip = chips.first(where: { matches($0.info) }) { return chip }
        throw .chipNotFound(lookedFor: description, available: chips.map(\.info))
    }

    /// `label "pinctrl-rp1"`, as error messages show it.
    public var description: String {
        switch self {
        case .label(let label): "label \"\(label)\""
        case .name(let name): "name \"\(name)\""
        case .path(let path): "path \(path)"
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
