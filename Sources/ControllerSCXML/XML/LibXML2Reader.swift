import CLibXML2

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
            throw .malformed(file: file, line: Int(max(line, 1)), element: nil, reason: string(reason))
        }
        return try tree(of: doc, file: file)
    }

    private static func tree(of doc: OpaquePointer, file: String) throws(SCXMLError) -> ParsedElement {
        defer { clibxml2_free_doc(doc) }
        guard let root = clibxml2_root(doc) else {
            throw .malformed(file: file, line: 1, element: nil, reason: "the document has no root element")
        }
        return element(root)
    }

    private static func element(_ node: OpaquePointer) -> ParsedElement {
        var attributes: [ParsedAttribute] = []
        var attribute = clibxml2_first_attribute(node)
        while let current = attribute {
            let raw = clibxml2_attribute_value(current)
            let value = raw.map { String(cString: $0) } ?? ""
            clibxml2_free(raw)
            attributes.append(ParsedAttribute(
                name: String(cString: clibxml2_attribute_name(current)),
                namespace: clibxml2_attribute_namespace(current).map { String(cString: $0) },
                value: value))
            attribute = clibxml2_next_attribute(current)
        }
        var children: [ParsedChild] = []
        var child = clibxml2_first_child(node)
        while let current = child {
            switch clibxml2_node_type(current) {
            case CLIBXML2_ELEMENT_NODE:
                children.append(.element(element(current)))
            case CLIBXML2_TEXT_NODE, CLIBXML2_CDATA_SECTION_NODE:
                if let text = clibxml2_node_text(current) { children.append(.text(String(cString: text))) }
            default:
                break
            }
            child = clibxml2_next_sibling(current)
        }
        return ParsedElement(
            name: String(cString: clibxml2_node_name(node)),
            namespace: clibxml2_node_namespace(node).map { String(cString: $0) },
            attributes: attributes, children: children, line: clibxml2_node_line(node))
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
