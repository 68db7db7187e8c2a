/// A daemon's option refused before anything runs, whichever way it came (the command line or a
/// `main` of its own that builds the options in code): the message names the option as the
/// command line spells it (`--retention-days`), what was wrong and the fix.
public struct DaemonOptionError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
