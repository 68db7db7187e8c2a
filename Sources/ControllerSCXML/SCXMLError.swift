import ControllerHost

/// Why a document cannot be run: each case says what to do about it, and all but the library's
/// absence name the file, and most the line and the element.
public enum SCXMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libxml2 could not be opened (`reason` is the loader's message); nothing was read.
    case libraryMissing(reason: String)
    /// The file could not be read at all (missing, a directory, no permission).
    case unreadable(file: String, reason: String)
    /// Not a well-formed XML document, or not a valid SCXML one (a missing `id`, a target that
    /// names no state, two states with one id).
    case malformed(file: String, line: Int, element: String?, reason: String)
    /// Valid SCXML that this loader does not run: an element, attribute or expression outside
    /// what it supports. Never guessed around.
    case unsupported(file: String, line: Int, element: String, reason: String)
    /// The runtime refused the machine the document describes (its messages name the lines).
    case refusedByRuntime(file: String, problems: [String])
    /// A document larger than a bound of `SCXMLLimits`, refused before the work it would cost:
    /// `limit` names the bound (`maximumStates`), `reason` says what passed it, the bound's
    /// value and what to do, at the line and element where it was passed.
    case overLimit(file: String, line: Int, element: String?, limit: String, reason: String)

    /// The Debian package holding the library.
    public static let libraryPackage = "libxml2"

    /// `.overLimit` for the bound `SCXMLLimits.<limit>` of value `bound`: "`what` (more than
    /// BOUND, SCXMLLimits.LIMIT); `fix`".
    static func overLimit(
        file: String, line: Int, element: String?, limit: String, bound: Int, what: String, fix: String
    ) -> SCXMLError {
        .overLimit(
            file: file, line: line, element: element, limit: limit,
            reason: "\(what) (more than \(bound), SCXMLLimits.\(limit)); \(fix)")
    }

    public var description: String {
        switch self {
        case .libraryMissing(let reason):
            return "libxml2 cannot be loaded (\(reason)); the SCXML loader reads documents with it: "
                + "sudo apt install \(Self.libraryPackage)"
        case .unreadable(let file, let reason):
            return "\(file): cannot be read: \(reason)"
        case .malformed(let file, let line, let element, let reason):
            return "\(file):\(line): \(element.map { "<\($0.shown)>: " } ?? "")\(reason)"
        case .unsupported(let file, let line, let element, let reason):
            return "\(file):\(line): <\(element.shown)>: not supported: \(reason)"
        case .refusedByRuntime(let file, let problems):
            return "\(file): the runtime refuses the machine: " + problems.joined(separator: "; ")
        case .overLimit(let file, let line, let element, _, let reason):
            return "\(file):\(line): \(element.map { "<\($0.shown)>: " } ?? "")\(reason)"
        }
    }
}
