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
        // libxml2 says only "failed to load external entity" for a file it cannot open: ask the
        // system why first.
        if access(path, R_OK) != 0 {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        var reason = [CChar](repeating: 0, count: Int(CLIBXML2_REASON_SIZE))
        var line: Int32 = 0
        guard let doc = clibxml2_read_file(path, &reason, reason.count, &line) else {
            let message = string(reason)
            // libxml2 says "failed to load external entity" for a file it cannot open at all.
            if line == 0 { throw .unreadable(file: path, reason: message) }
            throw .malformed(file: path, line: Int(line), element: nil, reason: message)
        }
        return try tree(of: doc, file: path)
    }

    /// The document element of `text`, named `file` in messages.
    public static func read(text: String, file: String) throws(SCXMLError) -> ParsedElement {
        try load()
        var reason = [CChar](repeating: 0, count: Int(CLIBXML2_REASON_SIZE))
        var line: Int32 = 0
        let bytes = Array(text.utf8)
        let doc = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                clibxml2_read_memory(start, Int32(buffer.count), file, &reason, reason.count, &line)
            }
        }
        guard let doc else {
            throw .malformed(file: file, line: Int(line), element: nil, reason: string(reason))
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
