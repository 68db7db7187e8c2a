/// One token of a transition's `event=`: `*`, a name, or a name ending in `.*`. It matches an
/// event whose name is that name or starts with it and a dot (SCXML 3.12.1: `error` matches
/// `error.execution`; `error.*` means the same as `error`).
public struct EventDescriptor: Sendable, Equatable, CustomStringConvertible {
    /// The name without a trailing `.*` or `.`; nil for `*`.
    public let prefix: String?

    public init(_ token: String) {
        if token == "*" {
            prefix = nil
            return
        }
        var name = Substring(token)
        if name.hasSuffix(".*") { name = name.dropLast(2) }
        while name.hasSuffix(".") { name = name.dropLast() }
        prefix = String(name)
    }

    /// The descriptors of an `event=` attribute: tokens separated by white space.
    public static func list(_ attribute: String) -> [EventDescriptor] {
        attribute.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map { EventDescriptor(String($0)) }
    }

    public func matches(_ event: String) -> Bool {
        guard let prefix else { return true }
        if event == prefix { return true }
        return event.hasPrefix(prefix) && event.dropFirst(prefix.count).first == "."
    }

    public var description: String { prefix ?? "*" }
}
