import ControllerHost
import Turnstile

/// The turnstile's state diagram as inline SVG: the five states and the main transitions of
/// DESIGN.md's table. Internal transitions (a coin while broken, more credit while unlocked, a
/// forced push while locked) change no state and are left out to keep the drawing readable.
///
/// Each state is a `<g class="node" data-state="NAME">`; the page's script moves the `current`
/// class to the state `/status` reports.
enum StateDiagram {
    struct Node {
        let state: TurnstileState
        let x: Int
        let y: Int
    }

    struct Edge {
        let path: String
        let label: String
        /// A second, smaller line under the label: the condition that picks this edge.
        var sublabel: String? = nil
        let labelX: Int
        let labelY: Int
        let anchor: String
    }

    /// A node's size in the drawing's units; wide enough for "outOfOrder" at the label size.
    static let nodeWidth = 124
    static let nodeHeight = 44

    static let nodes: [Node] = [
        Node(state: .broken, x: 100, y: 60),
        Node(state: .outOfOrder, x: 330, y: 60),
        Node(state: .locked, x: 170, y: 200),
        Node(state: .unlocked, x: 490, y: 200),
        Node(state: .emergency, x: 330, y: 330),
    ]

    static let edges: [Edge] = [
        Edge(path: "M232 190 Q330 148 428 190", label: "coin", labelX: 330, labelY: 160, anchor: "middle"),
        Edge(path: "M428 212 Q330 252 232 212", label: "push (last credit) · timeout", labelX: 330, labelY: 252, anchor: "middle"),
        Edge(path: "M150 178 L116 86", label: "fault", labelX: 126, labelY: 140, anchor: "end"),
        Edge(path: "M530 178 C600 60 470 6 330 10 C210 14 130 10 112 34", label: "fault", labelX: 560, labelY: 70, anchor: "start"),
        Edge(path: "M162 60 L264 60", label: "repair", labelX: 213, labelY: 52, anchor: "middle"),
        Edge(path: "M196 178 L286 86", label: "repair", labelX: 232, labelY: 126, anchor: "end"),
        Edge(path: "M314 82 L226 176", label: "timeout", labelX: 282, labelY: 138, anchor: "start"),
        Edge(path: "M462 178 L374 86", label: "repair", labelX: 428, labelY: 126, anchor: "start"),
        Edge(path: "M612 330 L396 330", label: "emergencyOn", sublabel: "(from any state)", labelX: 504, labelY: 302, anchor: "middle"),
        Edge(path: "M292 308 L196 226", label: "emergencyOff", sublabel: "(was in service)", labelX: 236, labelY: 290, anchor: "end"),
        Edge(path: "M268 342 C60 350 20 200 70 86", label: "emergencyOff", sublabel: "(was broken)", labelX: 34, labelY: 236, anchor: "end"),
    ]

    /// The SVG, with `current` (a state name) highlighted if it is one of the five.
    static func svg(current: String) -> String {
        var svg = #"<svg id="diagram" viewBox="-70 0 700 360" role="img" aria-label="turnstile state diagram">"#
        svg += ##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#64748b"/></marker></defs>"##
        for edge in edges {
            svg += #"<path class="edge" d="\#(edge.path)" marker-end="url(#arrow)"/>"#
            svg += #"<text class="edge-label" x="\#(edge.labelX)" y="\#(edge.labelY)" text-anchor="\#(edge.anchor)">\#(edge.label)"#
            if let sublabel = edge.sublabel {
                svg += #"<tspan class="condition" x="\#(edge.labelX)" dy="14">\#(sublabel)</tspan>"#
            }
            svg += "</text>"
        }
        for node in nodes {
            let name = node.state.name
            let current = name == current ? " current" : ""
            svg += #"<g class="node\#(current)" data-state="\#(name)">"#
            svg += #"<rect x="\#(node.x - nodeWidth / 2)" y="\#(node.y - nodeHeight / 2)" width="\#(nodeWidth)" height="\#(nodeHeight)" rx="12"/>"#
            svg += #"<text x="\#(node.x)" y="\#(node.y + 5)" text-anchor="middle">\#(name)</text></g>"#
        }
        return svg + "</svg>"
    }
}
