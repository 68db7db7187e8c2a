/// The diagram's text as the layout measures it. No font is at hand on the server, so widths
/// are estimated from a generous average advance per character: a box or a gap may come out a
/// little wider than it needs to, never narrower.
enum DiagramText {
    /// The page's CSS sets these sizes (`.node text`, `.edge-label`, `.condition`, `.stays`).
    enum Style: Equatable {
        /// A state's name in its box.
        case name
        /// An event on an arrow.
        case event
        /// A guard under its event.
        case condition
        /// The rows that stay in their state, in its box, and the diagram's caption.
        case list

        var fontSize: Double {
            switch self {
            case .name: 15
            case .event: 13
            case .condition, .list: 11
            }
        }

        /// Average advance per character in em, a little over what the widest usual system-ui
        /// (DejaVu Sans, Chromium's on a bare Linux) takes: about 0.55 em for its lowercase
        /// letters, 0.62 for the semibold names.
        var advance: Double {
            switch self {
            case .name: 0.66
            case .event, .condition, .list: 0.58
            }
        }

        /// The CSS class of a line in this style, if it has one of its own.
        var cssClass: String? {
            switch self {
            case .condition: "condition"
            case .name, .event, .list: nil
            }
        }
    }

    static let lineSpacing = 1.25
    /// Where a line's baseline sits below its top, in em.
    static let ascent = 0.95
    /// Guards and lists wrap at a word boundary past this many characters, so one long guard
    /// does not push its neighbours apart.
    static let maxConditionCharacters = 22
    static let maxListCharacters = 24
    /// The caption runs under the whole drawing.
    static let maxCaptionCharacters = 72

    static func width(_ text: String, _ style: Style) -> Double {
        Double(text.count) * style.fontSize * style.advance
    }

    static func lineHeight(_ style: Style) -> Double {
        style.fontSize * lineSpacing
    }

    /// `pieces` joined by spaces into lines of at most `limit` characters; a piece longer than
    /// that has a line of its own.
    static func wrap(_ pieces: [String], limit: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for piece in pieces {
            if line.isEmpty {
                line = piece
            } else if line.count + 1 + piece.count <= limit {
                line += " " + piece
            } else {
                lines.append(line)
                line = piece
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

/// Lines of text stacked and centred in a box.
struct DiagramLabel: Equatable {
    struct Line: Equatable {
        var text: String
        var style: DiagramText.Style
    }

    var lines: [Line]
    var box: DiagramBox

    /// The label centred on `center`.
    init(lines: [Line], center: DiagramPoint = DiagramPoint(x: 0, y: 0)) {
        self.lines = lines
        let width = lines.map { DiagramText.width($0.text, $0.style) }.max() ?? 0
        let height = lines.map { DiagramText.lineHeight($0.style) }.reduce(0, +)
        self.box = DiagramBox(center: center, width: width, height: height)
    }

    func moved(to center: DiagramPoint) -> DiagramLabel {
        DiagramLabel(lines: lines, center: center)
    }

    func moved(topLeft: DiagramPoint) -> DiagramLabel {
        moved(to: DiagramPoint(x: topLeft.x + box.width / 2, y: topLeft.y + box.height / 2))
    }

    /// Each line's baseline, top to bottom.
    var baselines: [Double] {
        var top = box.minY
        return lines.map { line in
            defer { top += DiagramText.lineHeight(line.style) }
            return top + line.style.fontSize * DiagramText.ascent
        }
    }
}
