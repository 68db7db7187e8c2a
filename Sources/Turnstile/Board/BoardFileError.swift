/// Why a board file was refused.
///
/// Its `description` is one line meant for a person fixing the file: the file, then where —
/// line and column for TOML syntax, the key path (`inputs.coin.bias`) for a wrong or missing
/// value — then the reason and a hint, e.g.
/// `boards/x.toml: inputs.coin.bias: "pullup" is not one of "as-is", "disabled", "pull-up",
/// "pull-down"; did you mean "pull-up"?`.
public struct BoardFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where in the file the problem is.
    public enum Location: Hashable, Sendable {
        /// The file as a whole (it could not be read).
        case file
        /// A TOML syntax error, 1-based.
        case position(line: Int, column: Int)
        /// A wrong or missing value, as a dotted key path such as `inputs.coin.bias`.
        case keyPath(String)
    }

    /// The file as the caller named it.
    public var file: String
    /// Line and column, key path, or the whole file.
    public var location: Location
    /// What is wrong.
    public var reason: String
    /// How to fix it, when there is more to say than the reason.
    public var hint: String?

    package init(file: String, location: Location, reason: String, hint: String? = nil) {
        self.file = file
        self.location = location
        self.reason = reason
        self.hint = hint
    }

    /// `file: place: reason; hint`, ready to print.
    public var description: String {
        let place = switch location {
        case .file: ""
        case .position(let line, let column): " line \(line), column \(column):"
        case .keyPath(let path): " \(path):"
        }
        // Parts may quote the file's own bytes: shown visibly, never raw.
        return ("\(file):\(place) \(reason)" + (hint.map { "; \($0)" } ?? "")).visible
    }
}
