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

    /// The file, place, reason and hint, formatted the same way as the simulator's scenario
    /// errors.
    package var problem: FileProblem

    /// The file as the caller named it.
    public var file: String {
        get { problem.file }
        set { problem.file = newValue }
    }

    /// Line and column, key path, or the whole file.
    public var location: Location {
        get {
            switch problem.place {
            case .wholeFile, .line: .file  // a board error is never placed by line alone
            case .position(let line, let column): .position(line: line, column: column)
            case .keyPath(let path): .keyPath(path)
            }
        }
        set { problem.place = Self.place(of: newValue) }
    }

    /// What is wrong.
    public var reason: String {
        get { problem.reason }
        set { problem.reason = newValue }
    }

    /// How to fix it, when there is more to say than the reason.
    public var hint: String? {
        get { problem.hint }
        set { problem.hint = newValue }
    }

    package init(file: String, location: Location, reason: String, hint: String? = nil) {
        problem = FileProblem(file: file, place: Self.place(of: location), reason: reason, hint: hint)
    }

    /// `file: place: reason; hint`, ready to print.
    public var description: String { problem.description }

    private static func place(of location: Location) -> FileProblem.Place {
        switch location {
        case .file: .wholeFile
        case .position(let line, let column): .position(line: line, column: column)
        case .keyPath(let path): .keyPath(path)
        }
    }
}
