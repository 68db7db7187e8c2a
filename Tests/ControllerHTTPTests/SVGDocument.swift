import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import ControllerHTTP

/// A diagram's SVG read back as XML, as a browser would: parsing fails on anything left
/// unescaped, and names and labels come back unescaped.
struct SVGDocument {
    struct Element {
        let name: String
        let attributes: [String: String]
        var children: [Element] = []
        var text = ""

        /// This element and every element inside it, in document order.
        var all: [Element] { [self] + children.flatMap(\.all) }
        /// The text of each `<tspan>`: a label's or a list's lines.
        var lines: [String] { children.filter { $0.name == "tspan" }.map(\.text) }
        var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    let root: Element

    init(_ svg: String) throws {
        let parser = XMLParser(data: Data(svg.utf8))
        let builder = Builder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw Malformed(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root element")")
        }
        self.root = root
    }

    func elements(_ name: String, class cssClass: String? = nil) -> [Element] {
        root.all.filter { $0.name == name && (cssClass.map($0.classes.contains) ?? true) }
    }

    /// The states drawn, in document order.
    var states: [String] { elements("g", class: "node").compactMap { $0.attributes["data-state"] } }
    /// The states drawn highlighted.
    var current: [String] { elements("g", class: "current").compactMap { $0.attributes["data-state"] } }
    /// Each arrow's and stub's label: the states it joins (`from` nil for a stub from any
    /// state) and its lines.
    var labels: [(from: String?, to: String?, lines: [String])] {
        elements("text", class: "edge-label").map { ($0.attributes["data-from"], $0.attributes["data-to"], $0.lines) }
    }

    /// One move as the drawing shows it.
    struct Move: Hashable, Comparable {
        let from: String
        let event: String
        let guardLabel: String?
        let to: String

        static func < (a: Move, b: Move) -> Bool {
            (a.from, a.event, a.guardLabel ?? "", a.to) < (b.from, b.event, b.guardLabel ?? "", b.to)
        }
    }

    /// Every move the arrows' and stubs' labels show, one per row: a label's lines are events,
    /// each followed by its guard in brackets (wrapped over lines); a stub's into a state stands
    /// for a row from each of the others.
    func drawnMoves(states: [String]) -> [Move] {
        var moves: [Move] = []
        for label in labels {
            guard let to = label.to else { continue }
            var rows: [(event: String, guardLabel: String?)] = []
            for line in label.lines where line != DiagramRows.anyStateNote {
                if let open = rows.last?.guardLabel, !open.hasSuffix("]") {
                    rows[rows.count - 1].guardLabel = open + " " + line
                } else if line.hasPrefix("["), let last = rows.last, last.guardLabel == nil {
                    rows[rows.count - 1].guardLabel = line
                } else {
                    rows.append((line, nil))
                }
            }
            let sources = label.from.map { [$0] } ?? states.filter { $0 != to }
            for from in sources {
                for row in rows {
                    moves.append(Move(from: from, event: row.event, guardLabel: row.guardLabel.map { String($0.dropFirst().dropLast()) }, to: to))
                }
            }
        }
        return moves.sorted()
    }

    /// The list in a state's box of the rows that stay in it, joined into one line.
    func stays(in state: String) -> String {
        let node = elements("g", class: "node").first { $0.attributes["data-state"] == state }
        return node?.all.filter { $0.classes.contains("stays") }.flatMap(\.lines).joined(separator: " ") ?? ""
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [Element] = []
        var root: Element?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            stack.append(Element(name: name, attributes: attributes))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let element = stack.removeLast()
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }
}
