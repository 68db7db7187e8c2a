/// A parsed XML element, copied out of libxml2's document so that nothing after reading holds C
/// memory: its name and namespace, its attributes in document order, its children (elements
/// and text) and the line it starts on.
public struct ParsedElement: Sendable, Equatable {
    public var name: String
    /// The namespace URI, nil without one.
    public var namespace: String?
    public var attributes: [ParsedAttribute]
    public var children: [ParsedChild]
    public var line: Int

    public init(name: String, namespace: String?, attributes: [ParsedAttribute] = [], children: [ParsedChild] = [], line: Int) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.children = children
        self.line = line
    }

    /// The value of the attribute `name` in no namespace.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name && $0.namespace == nil }?.value
    }

    /// The child elements, in document order.
    public var elements: [ParsedElement] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// The text directly inside (not inside child elements), joined.
    public var text: String {
        children.map { if case .text(let text) = $0 { text } else { "" } }.joined()
    }

    /// The first text directly inside that is not white space (space, tab, line ends), nil
    /// when there is none: what an element that holds no text must not have.
    public var strayText: String? {
        for child in children {
            if case .text(let text) = child, !text.trimmingWhitespace.isEmpty { return text }
        }
        return nil
    }
}

public struct ParsedAttribute: Sendable, Equatable {
    public var name: String
    public var namespace: String?
    public var value: String

    public init(name: String, namespace: String? = nil, value: String) {
        self.name = name
        self.namespace = namespace
        self.value = value
    }
}

/// What an element holds: an element or a run of text (a CDATA section is text). Comments and
/// processing instructions are passed over when the tree is copied; any other node is refused
/// (`XMLNodeKind`).
public enum ParsedChild: Sendable, Equatable {
    case element(ParsedElement)
    case text(String)
}
