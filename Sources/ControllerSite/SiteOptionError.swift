import ControllerHost

/// A site option (`--mqtt-node`, `--mqtt-prefix`, `--mqtt-discovery-prefix`, `fleet --retire`)
/// the command cannot use, said with the option the user gave, the value once (quoted and
/// escaped) and the fix.
package enum SiteOptionError: Error, CustomStringConvertible, Equatable {
    /// `option`'s node `node` is refused: `problem` says why, without quoting it again.
    case invalidNode(option: String, node: String, problem: String)
    /// The node id made from the board's and the host's names (no `--mqtt-node` given).
    case invalidDefaultNode(node: String, problem: String)
    case invalidPrefix(option: String, prefix: String, problem: String)
    case needsDatabase

    package var description: String {
        switch self {
        case let .invalidNode(option, node, problem): "\(option) '\(node.shown)' \(problem)"
        case let .invalidDefaultNode(node, problem):
            "the node id made from the board's and the host's names, '\(node.shown)', \(problem): give one with --mqtt-node"
        case let .invalidPrefix(option, prefix, problem): "\(option) '\(prefix.shown)' \(problem)"
        case .needsDatabase:
            "--mqtt needs --database: every counted event waits there (the outbox) until the broker has acknowledged it"
        }
    }
}
