/// How a board file names a GPIO line on its chip.
///
/// Names (`GPIO17`) survive kernel and board revisions that renumber offsets, so they are the
/// better choice where the chip's driver provides them; offsets remain for chips that do not.
public enum LineSelector: Hashable, Sendable, CustomStringConvertible {
    /// The line whose name (as `gpioinfo` shows it) is this string.
    case name(String)
    /// The line at this offset on the chip.
    case offset(UInt32)

    /// `"GPIO17"` (quoted, as in the file) or `17`.
    public var description: String {
        switch self {
        case .name(let name): "\"\(name)\""
        case .offset(let offset): "\(offset)"
        }
    }
}
