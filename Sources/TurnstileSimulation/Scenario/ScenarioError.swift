import Turnstile
/// Why a scenario was refused (the simulator exits with status 2 before anything runs).
///
/// Its `description` is one line: the file, the line, the reason and a hint, e.g.
/// `s.txt: line 7: time 3.0 is earlier than 5.0 on line 6; times must not decrease`.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file as the caller named it (`<stdin>` for standard input).
    public var file: String
    /// The 1-based line, or nil when the file as a whole could not be read.
    public var line: Int?
    /// What is wrong.
    public var reason: String
    /// How to fix it, when there is more to say than the reason.
    public var hint: String?

    init(file: String, line: Int?, reason: String, hint: String? = nil) {
        self.file = file
        self.line = line
        self.reason = reason
        self.hint = hint
    }

    /// `file: line N: reason; hint`, ready to print.
    public var description: String {
        let place = line.map { " line \($0):" } ?? ""
        // Parts may quote the file's own bytes: shown visibly, never raw.
        return ("\(file):\(place) \(reason)" + (hint.map { "; \($0)" } ?? "")).visible
    }
}
