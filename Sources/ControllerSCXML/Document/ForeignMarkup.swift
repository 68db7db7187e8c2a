import ControllerHost

/// Markup of other namespaces in a chart: an editor's layout (Qt Creator's `<qt:editorinfo>`
/// and `qt:` attributes), another tool's annotations. SCXML's schema leaves room for it in its
/// elements (`##other`), and it means nothing to a run: the loader passes it over, and says so
/// in one note per namespace.
///
/// The W3C test language's namespace is not foreign: its markup outside a `.txml` is refused
/// (the file should be named `.txml` to be expanded).
enum ForeignMarkup {
    /// `root` without the elements of other namespaces (and what is inside them), and a note
    /// for each namespace passed over: how many elements and attributes, and where the first is.
    static func strip(_ root: ParsedElement, file: String) -> (ParsedElement, notes: [String]) {
        var found: [String: (elements: Int, attributes: Int, firstLine: Int, firstName: String)] = [:]
        var order: [String] = []
        func note(_ namespace: String, element: Bool, line: Int, name: String) {
            if found[namespace] == nil {
                found[namespace] = (0, 0, line, name)
                order.append(namespace)
            }
            if element { found[namespace]!.elements += 1 } else { found[namespace]!.attributes += 1 }
        }
        func isForeign(_ namespace: String?) -> Bool {
            guard let namespace else { return false }
            return namespace != TestLanguage.scxmlNamespace && namespace != TestLanguage.namespace && namespace != xmlNamespace
        }
        func strip(_ element: ParsedElement) -> ParsedElement {
            var copy = element
            for attribute in element.attributes where isForeign(attribute.namespace) {
                note(attribute.namespace!, element: false, line: element.line, name: "\(attribute.name)=")
            }
            copy.children = element.children.compactMap { child in
                guard case .element(let inner) = child else { return child }
                if isForeign(inner.namespace) {
                    note(inner.namespace!, element: true, line: inner.line, name: "<\(inner.name)>")
                    return nil
                }
                return .element(strip(inner))
            }
            return copy
        }
        let stripped = strip(root)
        let notes = order.map { namespace in
            let counts = found[namespace]!
            var parts: [String] = []
            if counts.elements > 0 { parts.append("\(counts.elements) element\(counts.elements == 1 ? "" : "s")") }
            if counts.attributes > 0 { parts.append("\(counts.attributes) attribute\(counts.attributes == 1 ? "" : "s")") }
            return "\(file):\(counts.firstLine): passed over \(parts.joined(separator: " and ")) of the namespace \(namespace.shown) "
                + "(the first \(counts.firstName.shown)): markup of another namespace, such as an editor's layout, means nothing to a run"
        }
        return (stripped, notes)
    }

    /// The `xml:` prefix's namespace (`xml:lang`, `xml:space`), which is XML's own.
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
}
