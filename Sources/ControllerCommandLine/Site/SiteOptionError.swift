import ControllerHost
/// An `--mqtt-*` option the daemon cannot use, said with the fix.
enum SiteOptionError: Error, CustomStringConvertible, Equatable {
    case invalidNode(String, problem: String)
    case invalidPrefix(String, problem: String)
    case needsDatabase

    var description: String {
        switch self {
        case let .invalidNode(node, problem): "--mqtt-node '\(node.shown)' \(problem)"
        case let .invalidPrefix(prefix, problem): "--mqtt-prefix '\(prefix.shown)' \(problem)"
        case .needsDatabase:
            "--mqtt needs --database: every counted event waits there (the outbox) until the broker has acknowledged it"
        }
    }
}
