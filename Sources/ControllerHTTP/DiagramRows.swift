/// A diagram's rows sorted into what the drawing shows of them (see ``DiagramLayout``), by state
/// index. Rows naming a state the diagram does not list are left out.
struct DiagramRows {
    /// The rows from one state to another, drawn as one arrow.
    struct Arrow {
        let from: Int
        let to: Int
        var lines: [DiagramLabel.Line]
    }

    /// Rows into `to` from every other state, drawn as one stub.
    struct FromAnyState {
        let to: Int
        var lines: [DiagramLabel.Line]
    }

    static let captionPrefix = "in every state:"
    static let anyStateNote = "(from any state)"
    /// Marks a row that leaves its state and enters it again (exit and entry work run).
    static let reentryMark = "↻ "

    let initial: Int
    let arrows: [Arrow]
    let fromAnyState: [FromAnyState]
    /// Per state, the lines listing its rows that stay in it; `nil` when it has none.
    let stays: [[DiagramLabel.Line]?]
    let caption: [DiagramLabel.Line]?
    /// Each state's distance in moves from the initial one; unreachable states one past the farthest.
    let distances: [Int]
    /// Every row that leads to another state, as (from, to).
    let allMoves: [(Int, Int)]

    /// The arrows' ends: the lines between boxes (a stub is no line to another box).
    var drawnMoves: [(Int, Int)] { arrows.map { ($0.from, $0.to) } }

    init(_ diagram: StateDiagram) {
        let states = diagram.states
        let index = { (name: String) in states.firstIndex(of: name) }
        initial = index(diagram.initial) ?? 0

        var moves: [(from: Int, to: Int, event: String, guardLabel: String?)] = []
        var stays = [[(event: String, guardLabel: String?, reenters: Bool)]](repeating: [], count: states.count)
        for row in diagram.transitions {
            guard let from = index(row.from) else { continue }
            guard let toName = row.to else {
                stays[from].append((row.event, row.guardLabel, false))
                continue
            }
            guard let to = index(toName) else { continue }
            if to == from {
                stays[from].append((row.event, row.guardLabel, true))
            } else {
                moves.append((from, to, row.event, row.guardLabel))
            }
        }
        allMoves = moves.map { ($0.from, $0.to) }

        // Events every state answers without a guard and without leaving: one caption line.
        var everywhere: [String] = []
        if states.count >= 2 {
            for stay in stays[0] where stay.guardLabel == nil && !stay.reenters && !everywhere.contains(stay.event) {
                if stays.allSatisfy({ $0.contains { $0.event == stay.event && $0.guardLabel == nil && !$0.reenters } }) {
                    everywhere.append(stay.event)
                }
            }
        }
        caption = everywhere.isEmpty ? nil : Self.listLines(everywhere.map { ($0, nil) }, after: Self.captionPrefix, limit: DiagramText.maxCaptionCharacters)
        self.stays = stays.map { rows in
            let shown = rows.filter { !($0.guardLabel == nil && !$0.reenters && everywhere.contains($0.event)) }
            guard !shown.isEmpty else { return nil }
            return Self.listLines(shown.map { (($0.reenters ? Self.reentryMark : "") + $0.event, $0.guardLabel) })
        }

        // The same event and guard into one state from every other state: one stub.
        var groups: [(event: String, guardLabel: String?, to: Int, sources: [Int])] = []
        for move in moves {
            if let found = groups.firstIndex(where: { $0.event == move.event && $0.guardLabel == move.guardLabel && $0.to == move.to }) {
                groups[found].sources.append(move.from)
            } else {
                groups.append((move.event, move.guardLabel, move.to, [move.from]))
            }
        }
        let collapsed = groups.filter { group in
            group.sources.count >= DiagramLayout.anyStateMinimumSources
                && Set(group.sources) == Set(states.indices).subtracting([group.to])
        }
        var fromAnyState: [FromAnyState] = []
        for group in collapsed {
            let lines = Self.rowLines(event: group.event, guardLabel: group.guardLabel)
            if let found = fromAnyState.firstIndex(where: { $0.to == group.to }) {
                fromAnyState[found].lines += lines
            } else {
                fromAnyState.append(FromAnyState(to: group.to, lines: lines))
            }
        }
        for found in fromAnyState.indices {
            fromAnyState[found].lines.append(DiagramLabel.Line(text: Self.anyStateNote, style: .condition))
        }
        self.fromAnyState = fromAnyState

        var arrows: [Arrow] = []
        for move in moves where !collapsed.contains(where: { $0.event == move.event && $0.guardLabel == move.guardLabel && $0.to == move.to }) {
            let lines = Self.rowLines(event: move.event, guardLabel: move.guardLabel)
            if let found = arrows.firstIndex(where: { $0.from == move.from && $0.to == move.to }) {
                arrows[found].lines += lines
            } else {
                arrows.append(Arrow(from: move.from, to: move.to, lines: lines))
            }
        }
        self.arrows = arrows
        distances = Self.distances(count: states.count, from: initial, moves: allMoves)
    }

    /// Whether an arrow runs the other way between the same two states too (both are bent, to
    /// stay apart).
    func isTwoWay(_ arrow: Arrow) -> Bool {
        arrows.contains { $0.from == arrow.to && $0.to == arrow.from }
    }

    /// A row's event, and its guard under it in brackets.
    static func rowLines(event: String, guardLabel: String?) -> [DiagramLabel.Line] {
        var lines = [DiagramLabel.Line(text: event, style: .event)]
        if let guardLabel {
            let words = "[\(guardLabel)]".split(separator: " ").map(String.init)
            lines += DiagramText.wrap(words, limit: DiagramText.maxConditionCharacters).map { DiagramLabel.Line(text: $0, style: .condition) }
        }
        return lines
    }

    /// Entries separated by commas, after `prefix` if any, wrapped at most `limit` characters a
    /// line. An entry is its event and its guard in brackets (`push [credit > 1]`); a guard too
    /// long for a line is broken between words.
    static func listLines(
        _ entries: [(event: String, guardLabel: String?)], after prefix: String? = nil, limit: Int = DiagramText.maxListCharacters
    ) -> [DiagramLabel.Line] {
        var pieces = prefix.map { [$0] } ?? []
        for (index, entry) in entries.enumerated() {
            var words = [entry.event]
            if let guardLabel = entry.guardLabel {
                let bracketed = "[\(guardLabel)]"
                words += bracketed.count <= limit ? [bracketed] : bracketed.split(separator: " ").map(String.init)
            }
            if index < entries.count - 1 { words[words.count - 1] += "," }
            pieces += words
        }
        return DiagramText.wrap(pieces, limit: limit).map { DiagramLabel.Line(text: $0, style: .list) }
    }

    /// Breadth-first distances from `start` along `moves`.
    static func distances(count: Int, from start: Int, moves: [(Int, Int)]) -> [Int] {
        var distance = [Int?](repeating: nil, count: count)
        guard count > 0 else { return [] }
        distance[start] = 0
        var queue = [start]
        var next = 0
        while next < queue.count {
            let state = queue[next]
            next += 1
            for (from, to) in moves where from == state && distance[to] == nil {
                distance[to] = distance[state]! + 1
                queue.append(to)
            }
        }
        let unreachable = (distance.compactMap { $0 }.max() ?? 0) + 1
        return distance.map { $0 ?? unreachable }
    }
}
