/// What is wrong with a file a person wrote, and where: the one shape behind ``BoardFileError``
/// and the simulator's `ScenarioError`, so that both read alike and their one-line form is
/// written once.
package struct FileProblem: Hashable, Sendable, CustomStringConvertible {
    /// Where in the file the problem is.
    package enum Place: Hashable, Sendable {
        /// The file as a whole (it could not be read, or is too large).
        case wholeFile
        /// A 1-based line.
        case line(Int)
        /// A 1-based line and column, as a syntax error reports it.
        case position(line: Int, column: Int)
        /// A wrong or missing value, as a dotted key path such as `inputs.coin.bias`.
        case keyPath(String)
    }

    /// The file as the caller named it.
    package var file: String
    /// Where in the file, or the whole file.
    package var place: Place
    /// What is wrong.
    package var reason: String
    /// How to fix it, when there is more to say than the reason.
    package var hint: String?

    package init(file: String, place: Place, reason: String, hint: String? = nil) {
        self.file = file
        self.place = place
        self.reason = reason
        self.hint = hint
    }

    /// `file: place: reason; hint`, ready to print.
    package var description: String {
        let place = switch place {
        case .wholeFile: ""
        case .line(let line): " line \(line):"
        case .position(let line, let column): " line \(line), column \(column):"
        case .keyPath(let path): " \(path.shown):"  // an unknown key is the file's own text
        }
        // Parts may quote the file's own bytes: shown (escaped and bounded), never raw.
        return ("\(file):\(place) \(reason)" + (hint.map { "; \($0)" } ?? "")).shownLine
    }
}
