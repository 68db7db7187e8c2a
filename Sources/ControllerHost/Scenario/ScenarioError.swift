/// Why a scenario was refused (the simulator exits with status 2 before anything runs).
///
/// Its `description` is one line: the file, the line, the reason and a hint, e.g.
/// `s.txt: line 7: time 3.0 is earlier than 5.0 on line 6; times must not decrease`.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, line, reason and hint, formatted the same way as board file errors.
    package var problem: FileProblem

    /// The file as the caller named it (`<stdin>` for standard input).
    public var file: String {
        get { problem.file }
        set { problem.file = newValue }
    }

    /// The 1-based line, or nil when the file as a whole could not be read.
    public var line: Int? {
        get {
            switch problem.place {
            case .line(let line), .position(let line, _): line
            case .wholeFile, .keyPath: nil  // a scenario has no key paths
            }
        }
        set { problem.place = newValue.map(FileProblem.Place.line) ?? .wholeFile }
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

    package init(file: String, line: Int?, reason: String, hint: String? = nil) {
        problem = FileProblem(file: file, place: line.map(FileProblem.Place.line) ?? .wholeFile, reason: reason, hint: hint)
    }

    /// A byte refused where it stands: line and column.
    package init(file: String, place: FileProblem.Place, reason: String, hint: String? = nil) {
        problem = FileProblem(file: file, place: place, reason: reason, hint: hint)
    }

    /// `file: line N: reason; hint`, ready to print.
    public var description: String { problem.description }
}
