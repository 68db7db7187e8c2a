extension DiagramLayout {
    /// The states' colours, by declaration order, repeating past the end; the page paints the
    /// current state's box and name with its colour. The first five are the turnstile's.
    static let palette = [
        "#2563eb", "#16a34a", "#ea580c", "#ca8a04", "#dc2626",
        "#7c3aed", "#0891b2", "#db2777", "#4d7c0f", "#475569",
    ]

    /// The diagram as inline SVG, `current` (a state's name) highlighted if it is one. It fills
    /// its card's width but is never drawn larger than its own units, so a small machine keeps
    /// the text size of a large one.
    ///
    /// Each state is a `<g class="node" data-state="NAME">`; the page's script moves the
    /// `current` class to the state `/status` reports. An arrow and its label carry the names
    /// of the states they join (`data-from`, `data-to`); a stub from any state only `data-to`.
    func svg(current: String) -> String {
        let v = bounds
        var svg = #"<svg id="diagram" viewBox="\#(n(v.minX)) \#(n(v.minY)) \#(n(v.width)) \#(n(v.height))" style="max-width:\#(n(v.width))px;margin:0 auto" role="img" aria-label="state diagram">"#
        svg += ##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#64748b"/></marker></defs>"##
        // Superstates behind everything, outermost first.
        for frame in frames {
            let box = frame.box
            let name = StatusPage.escape(frame.name)
            svg += #"<g class="frame\#(frame.isParallel ? " parallel" : "")" data-superstate="\#(name)">"#
            svg += #"<rect x="\#(n(box.minX))" y="\#(n(box.minY))" width="\#(n(box.width))" height="\#(n(box.height))" rx="16"/>"#
            svg += #"<text x="\#(n(box.minX + Self.framePadding))" y="\#(n(frame.nameBaseline))">\#(name)</text></g>"#
        }
        for arrow in arrows {
            let c = arrow.curve
            svg += #"<path class="edge"\#(ends(from: arrow.from, to: arrow.to)) d="M\#(n(c.start.x)) \#(n(c.start.y)) Q\#(n(c.control.x)) \#(n(c.control.y)) \#(n(c.end.x)) \#(n(c.end.y))" marker-end="url(#arrow)"/>"#
        }
        for stub in stubs {
            svg += #"<path class="edge"\#(ends(to: stub.label == nil ? nil : stub.to)) d="M\#(n(stub.start.x)) \#(n(stub.start.y)) L\#(n(stub.end.x)) \#(n(stub.end.y))" marker-end="url(#arrow)"/>"#
            if stub.label == nil {
                svg += #"<circle class="initial" cx="\#(n(stub.start.x))" cy="\#(n(stub.start.y))" r="4"/>"#
            }
        }
        for node in nodes {
            let name = StatusPage.escape(node.name)
            let current = node.name == current ? " current" : ""
            let box = node.box
            svg += #"<g class="node\#(current)" data-state="\#(name)">"#
            svg += #"<rect x="\#(n(box.minX))" y="\#(n(box.minY))" width="\#(n(box.width))" height="\#(n(box.height))" rx="12"/>"#
            svg += #"<text x="\#(n(box.center.x))" y="\#(n(node.nameBaseline))" text-anchor="middle">\#(name)</text>"#
            if let stays = node.stays {
                svg += text(stays, class: "stays", anchor: "middle")
            }
            svg += "</g>"
        }
        for arrow in arrows {
            svg += text(arrow.label, class: "edge-label", ends: ends(from: arrow.from, to: arrow.to), anchor: "middle")
        }
        for stub in stubs {
            if let label = stub.label { svg += text(label, class: "edge-label", ends: ends(to: stub.to), anchor: "middle") }
        }
        if let caption {
            svg += text(caption, class: "caption", anchor: "start")
        }
        return svg + "</svg>"
    }

    /// CSS giving each state its colour (`--c`), for its box when current and the state card.
    var stateColors: String {
        nodes.indices.map { "[data-state=\(Self.cssValue(nodes[$0].name))]{--c:\(Self.palette[$0 % Self.palette.count])}" }.joined()
    }

    /// CSS for the superstates' frames: none for a flat machine, whose page stays as it was.
    var frameStyle: String {
        frames.isEmpty ? "" : ".frame rect{fill:rgba(148,163,184,.06);stroke:#94a3b8;stroke-width:1.2}.frame.parallel rect{stroke-dasharray:6 4}.frame text{font-size:12px;font-weight:600;fill:#64748b}"
    }

    /// The attributes naming the states an arrow joins, as far as it has them.
    private func ends(from: Int? = nil, to: Int?) -> String {
        let from = from.map { #" data-from="\#(StatusPage.escape(nodes[$0].name))""# } ?? ""
        return from + (to.map { #" data-to="\#(StatusPage.escape(nodes[$0].name))""# } ?? "")
    }

    private func text(_ label: DiagramLabel, class cssClass: String, ends: String = "", anchor: String) -> String {
        let x = anchor == "start" ? label.box.minX : label.box.center.x
        var text = #"<text class="\#(cssClass)"\#(ends) text-anchor="\#(anchor)">"#
        for (line, baseline) in zip(label.lines, label.baselines) {
            let lineClass = line.style.cssClass.map { #" class="\#($0)""# } ?? ""
            text += #"<tspan\#(lineClass) x="\#(n(x))" y="\#(n(baseline))">\#(StatusPage.escape(line.text))</tspan>"#
        }
        return text + "</text>"
    }

    /// A coordinate in whole units: enough for a drawing scaled to a card, and the same bytes
    /// for the same layout.
    private func n(_ value: Double) -> String {
        String(Int(value.rounded()))
    }

    /// A state name as a CSS attribute value: bare when it is an identifier (as every Swift
    /// case name is), else a quoted string that cannot end the string or the `<style>` element.
    static func cssValue(_ name: String) -> String {
        let isIdentifier = !name.isEmpty && name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-")
        } && !(name.first!.isNumber || name.first == "-")
        if isIdentifier { return name }
        var quoted = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"", "\\": quoted += "\\" + String(scalar)
            case "<", ">", "&", "\n", "\r", "\t", "\u{0C}": quoted += "\\" + String(scalar.value, radix: 16) + " "
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
