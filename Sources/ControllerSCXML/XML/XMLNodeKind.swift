/// Every kind of node libxml2's tree has (`xmlElementType` in its tree.h, whose values its ABI
/// keeps), and what the loader does with each: it reads it, passes over it, or refuses the
/// document, by file and line. The loader never skips what it does not read: comments and
/// processing instructions are the only kinds passed over here, and white space the only text
/// the reader passes over (`DocumentReader` refuses other text where SCXML reads none).
enum XMLNodeKind: Int32, CaseIterable, Sendable {
    case element = 1
    case attribute = 2
    case text = 3
    case cdataSection = 4
    case entityReference = 5
    case entity = 6
    case processingInstruction = 7
    case comment = 8
    case document = 9
    case documentType = 10
    case documentFragment = 11
    case notation = 12
    case htmlDocument = 13
    case dtd = 14
    case elementDeclaration = 15
    case attributeDeclaration = 16
    case entityDeclaration = 17
    case namespaceDeclaration = 18
    case xincludeStart = 19
    case xincludeEnd = 20
    case docbDocument = 21

    enum Treatment: Equatable, Sendable {
        /// Copied into the tree: an element, or text (a CDATA section is text, as XML says).
        case read
        /// Means nothing to SCXML: a comment, a processing instruction.
        case passedOver
        /// The document is refused, saying why.
        case refused(String)
    }

    var treatment: Treatment {
        switch self {
        case .element, .text, .cdataSection:
            return .read
        case .comment, .processingInstruction:
            return .passedOver
        case .entityReference:
            // Substituting would also load external entities in this libxml2; an entity left
            // unread would be text lost in silence.
            return .refused("an entity reference (&name;) is not read: the loader substitutes no entities; "
                + "write its text, or a character reference such as &#233;")
        case .dtd, .documentType:
            return .refused(Self.doctypeRefusal)
        case .attribute, .entity, .document, .documentFragment, .notation, .htmlDocument, .elementDeclaration,
             .attributeDeclaration, .entityDeclaration, .namespaceDeclaration, .xincludeStart, .xincludeEnd, .docbDocument:
            return .refused("libxml2 gave a node of kind \(rawValue) (\(self)), which the loader does not read")
        }
    }

    static let doctypeRefusal = "a DOCTYPE is not read: the loader reads no DTD, neither its entities nor its default "
        + "attributes (SCXML has none); remove it"

    /// The kind of a node libxml2 reports, and how it is treated (a kind this list does not
    /// know, from a later libxml2, is refused).
    static func treatment(ofKind raw: Int32) -> Treatment {
        XMLNodeKind(rawValue: raw)?.treatment ?? .refused("libxml2 gave a node of kind \(raw), which the loader does not know")
    }
}
