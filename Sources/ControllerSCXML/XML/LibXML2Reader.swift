import CLibXML2
import ControllerHost

#if canImport(Glibc)
import Glibc
#endif

/// Reads XML with libxml2 (opened at run time through CLibXML2, the only code that imports it)
/// into an `ParsedElement` tree, and frees libxml2's document before returning.
public enum LibXML2Reader {
    /// Opens libxml2, once per process; throws `.libraryMissing` naming the package to install.
    public static func load() throws(SCXMLError) {
        var reason = [CChar](repeating: 0, count: Int(CLIBXML2_REASON_SIZE))
        if clibxml2_load(&reason, reason.count) != 0 {
            throw .libraryMissing(reason: string(reason))
        }
    }

    /// The document element of the file at `path`.
    public static func read(file path: String) throws(SCXMLError) -> ParsedElement {
        try load()
        return try parse(DocumentFile.bytes(of: path), file: path)
    }

    /// The document element of `text`, named `file` in messages.
    public static func read(text: String, file: String) throws(SCXMLError) -> ParsedElement {
        try load()
        return try parse(Array(text.utf8), file: file)
    }

    /// Checks the bytes' bounds (`XMLBounds`), then parses them.
    private static func parse(_ bytes: [UInt8], file: String) throws(SCXMLError) -> ParsedElement {
        let checked: SCXMLError? = bytes.withUnsafeBufferPointer { buffer in
            do throws(SCXMLError) {
                try XMLBounds.check(buffer, file: file)
                return nil
            } catch {
                return error
            }
        }
        if let checked { throw checked }
        var reason = [CChar](repeating: 0, count: Int(CLIBXML2_REASON_SIZE))
        var line: Int32 = 0
        // An empty array may have no storage; libxml2 is given a valid pointer either way.
        let storage = bytes.isEmpty ? [0] : bytes
        let doc = storage.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { start in
                clibxml2_read_memory(start.baseAddress!, Int32(bytes.count), file, &reason, reason.count, &line)
            }
        }
        guard let doc else {
            // libxml2's message can quote the document, and spans lines ("Bytes: 0xE9 …").
            let message = ShownText.render(string(reason), limit: SCXMLLimits.maximumLibraryMessageCharacters, escaping: true)
            throw .malformed(file: file, line: Int(max(line, 1)), element: nil, reason: message)
        }
        return try tree(of: doc, file: file)
    }

    /// The root element's tree; every node of the document is read, passed over or refused as
    /// `XMLNodeKind` says, none skipped.
    private static func tree(of doc: OpaquePointer, file: String) throws(SCXMLError) -> ParsedElement {
        defer { clibxml2_free_doc(doc) }
        guard let root = clibxml2_root(doc) else {
            throw .malformed(file: file, line: 1, element: nil, reason: "the document has no root element")
        }
        // Around the root: its DOCTYPE (XMLBounds refuses one first), comments and processing
        // instructions, named by the DOCTYPE or the root element.
        let rootName = String(cString: clibxml2_node_name(root))
        var node = clibxml2_doc_first_child(doc)
        while let current = node {
            if current != root {
                let isDoctype = [XMLNodeKind.dtd, .documentType].contains { $0.rawValue == clibxml2_node_type(current) }
                try check(current, in: isDoctype ? "!DOCTYPE" : rootName, file: file)
            }
            node = clibxml2_next_sibling(current)
        }
        return try element(root, file: file)
    }

    /// Refuses `node` unless its kind is passed over (or read, which the caller does).
    private static func check(_ node: OpaquePointer, in element: String, file: String) throws(SCXMLError) {
        if case .refused(let reason) = XMLNodeKind.treatment(ofKind: clibxml2_node_type(node)) {
            throw .unsupported(file: file, line: max(clibxml2_node_line(node), 1), element: element, reason: reason)
        }
    }

    private static func element(_ node: OpaquePointer, file: String) throws(SCXMLError) -> ParsedElement {
        let name = String(cString: clibxml2_node_name(node))
        let line = clibxml2_node_line(node)
        var attributes: [ParsedAttribute] = []
        var attribute = clibxml2_first_attribute(node)
        while let current = attribute {
            attributes.append(ParsedAttribute(
                name: String(cString: clibxml2_attribute_name(current)),
                namespace: clibxml2_attribute_namespace(current).map { String(cString: $0) },
                value: try value(of: current, element: name, line: line, file: file)))
            attribute = clibxml2_next_attribute(current)
        }
        var children: [ParsedChild] = []
        var child = clibxml2_first_child(node)
        while let current = child {
            let kind = clibxml2_node_type(current)
            if kind == CLIBXML2_ELEMENT_NODE {
                children.append(.element(try element(current, file: file)))
            } else if kind == CLIBXML2_TEXT_NODE || kind == CLIBXML2_CDATA_SECTION_NODE {
                children.append(.text(clibxml2_node_text(current).map { String(cString: $0) } ?? ""))
            } else {
                try check(current, in: name, file: file)
            }
            child = clibxml2_next_sibling(current)
        }
        return ParsedElement(
            name: name, namespace: clibxml2_node_namespace(node).map { String(cString: $0) },
            attributes: attributes, children: children, line: line)
    }

    /// An attribute's value: its text nodes (character references and &amp; and the like are
    /// already text); an entity reference, or any other node, is refused.
    private static func value(of attribute: OpaquePointer, element: String, line: Int, file: String) throws(SCXMLError) -> String {
        var value = ""
        var node = clibxml2_attribute_first_child(attribute)
        while let current = node {
            if clibxml2_node_type(current) == CLIBXML2_TEXT_NODE {
                value += clibxml2_node_text(current).map { String(cString: $0) } ?? ""
            } else {
                let reason: String
                if case .refused(let why) = XMLNodeKind.treatment(ofKind: clibxml2_node_type(current)) {
                    reason = why
                } else {
                    reason = "an attribute's value holds text only"
                }
                throw .unsupported(
                    file: file, line: max(line, 1), element: element,
                    reason: "\(String(cString: clibxml2_attribute_name(attribute)).shown)=: \(reason)")
            }
            node = clibxml2_next_sibling(current)
        }
        return value
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
