import ControllerFSM
import Hummingbird
import Testing
import ControllerHost
import Turnstile
@testable import ControllerHTTP

@Suite struct StateDiagramTests {
    /// The rows that lead to another state, as the drawing should show them.
    static func moves(_ diagram: StateDiagram) -> [SVGDocument.Move] {
        diagram.transitions.compactMap { row in
            guard let to = row.to, to != row.from else { return nil }
            return SVGDocument.Move(from: row.from, event: row.event, guardLabel: row.guardLabel, to: to)
        }.sorted()
    }

    /// Every row drawn once: each move on an arrow or a stub, each row that stays in its state's
    /// box or, when every state answers it that way, in the caption.
    static func expectEveryRowDrawn(_ diagram: StateDiagram, _ svg: SVGDocument, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(svg.drawnMoves(states: diagram.states) == moves(diagram), sourceLocation: sourceLocation)
        let caption = svg.elements("text", class: "caption").flatMap(\.lines).joined(separator: " ")
        for row in diagram.transitions where row.to == nil || row.to == row.from {
            let entry = (row.to == nil ? "" : DiagramRows.reentryMark) + row.event + (row.guardLabel.map { " [\($0)]" } ?? "")
            let everywhere = row.to == nil && row.guardLabel == nil && caption.contains(row.event)
            #expect(everywhere || svg.stays(in: row.from).contains(entry), "\(entry) is not listed in \(row.from)", sourceLocation: sourceLocation)
        }
    }

    @Test func theTurnstilesDiagramHasANodePerStateAndAnArrowPerRowThatMoves() throws {
        let table = TurnstileMachine.table
        let diagram = StateDiagram(table)
        #expect(diagram.states == TurnstileMachine.table.atomicStates.map(\.name))
        #expect(diagram.initial == TurnstileState.locked.name)
        // Each state is drawn with every row that can answer in it, its own and then its
        // superstates' (up to the first without a guard, as dispatch tries them); a row into a
        // superstate or a history leads to the state it starts in.
        let answering = table.atomicStates.flatMap { state in
            TurnstileEvent.allCases.flatMap { event in
                let rows = table.rows(for: state, event)
                let tried = rows.firstIndex { $0.guardLabel == nil }.map { rows[...$0] } ?? rows
                return tried.map { (state: state, row: $0) }
            }
        }
        #expect(diagram.transitions.count == answering.count)
        #expect(diagram.moves.count == answering.filter { answer in
            answer.row.target.map { table.defaultAtomicState(entering: $0) != answer.state } ?? false
        }.count)
        #expect(diagram.transitions.contains { $0.from == "outOfOrder" && $0.event == "emergencyOn" && $0.to == "emergency" },
                "operating's fire alarm row is drawn from every state inside it")
        #expect(diagram.transitions.contains { $0.from == "emergency" && $0.event == "emergencyOff (H)" && $0.to == "locked" },
                "the return through operating's history is drawn to its default")

        let svg = try SVGDocument(DiagramLayout(diagram).svg(current: "broken"))
        #expect(svg.states == TurnstileMachine.table.atomicStates.map(\.name))
        #expect(svg.current == ["broken"])
        Self.expectEveryRowDrawn(diagram, svg)
        // The rows that stay put are listed in their state's box.
        #expect(svg.stays(in: "unlocked") == "coin, push [credit > 1]")
        #expect(svg.elements("circle", class: "initial").count == 1)
    }

    @Test func aMachineDeclaredHereIsDrawnWithItsOwnNamesAndNothingOfTheTurnstile() async throws {
        let diagram = StateDiagram(try doorTable())
        let svg = try SVGDocument(DiagramLayout(diagram).svg(current: "ajar"))
        #expect(svg.states == ["shut", "ajar", "wide"])
        #expect(svg.current == ["ajar"])
        Self.expectEveryRowDrawn(diagram, svg)
        #expect(svg.stays(in: "ajar") == "↻ creak")

        let turnstileWords = TurnstileMachine.table.atomicStates.map(\.name) + TurnstileEvent.allCases.map(\.name)
        try await withRoutes(SnapshotSource(fixedSnapshot(state: "ajar")), diagram: diagram) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains(#"<g class="node current" data-state="ajar">"#))
                #expect(page.contains(#"<g class="node" data-state="shut">"#))
                #expect(page.contains(#"<g class="node" data-state="wide">"#))
                #expect(page.components(separatedBy: "class=\"node current\"").count == 2)
                let drawing = try #require(page.range(of: "<svg").map { page[$0.lowerBound...] }?.components(separatedBy: "</svg>").first)
                let style = try #require(page.components(separatedBy: "<style>").dropFirst().first?.components(separatedBy: "</style>").first)
                #expect(style.contains("[data-state=ajar]{--c:"))
                for word in turnstileWords {
                    #expect(!drawing.contains(word), "the door's diagram shows the turnstile's \(word)")
                    #expect(!style.contains(word), "the door's page styles the turnstile's \(word)")
                }
            }
        }
    }

    @Test func theParkingBarriersSixStatesAreDrawnWithEveryRow() throws {
        let diagram = StateDiagram(try barrierTable())
        let svg = try SVGDocument(DiagramLayout(diagram).svg(current: "closing"))
        #expect(svg.states == ArmState.allCases.map(\.name))
        #expect(svg.current == ["closing"])
        Self.expectEveryRowDrawn(diagram, svg)
        // emergencyOn leads to emergency from every other state: one stub, not five arrows.
        #expect(svg.labels.filter { $0.to == "emergency" }.map(\.from) == [nil])
        // The level edges every state only notes are said once.
        #expect(svg.elements("text", class: "caption").flatMap(\.lines) == ["in every state: vehicleOut, unblocked, upLeft"])
        #expect(!svg.stays(in: "fault").contains("unblocked"))
    }

    /// What makes a drawing readable, held for the turnstile, the barrier and the door: no box
    /// on another, no label on a box or on another label, no arrow through a third box.
    @Test(arguments: ["turnstile", "barrier", "door"])
    func nothingIsDrawnOverAnythingElse(machine: String) throws {
        let diagram = switch machine {
        case "turnstile": StateDiagram(TurnstileMachine.table)
        case "barrier": StateDiagram(try barrierTable())
        default: StateDiagram(try doorTable())
        }
        let layout = DiagramLayout(diagram)
        let boxes = layout.nodes.map(\.box)
        let labels = layout.arrows.map(\.label.box) + layout.stubs.compactMap { $0.label?.box } + [layout.caption?.box].compactMap { $0 }
        for (i, box) in boxes.enumerated() {
            for other in boxes.dropFirst(i + 1) { #expect(box.overlap(other) == 0) }
            for label in labels { #expect(box.overlap(label) == 0, "a label lies on \(layout.nodes[i].name)") }
        }
        for (i, label) in labels.enumerated() {
            for other in labels.dropFirst(i + 1) { #expect(label.overlap(other) == 0, "two labels overlap at \(label)") }
        }
        for arrow in layout.arrows {
            for (state, node) in layout.nodes.enumerated() where state != arrow.from && state != arrow.to {
                #expect(!arrow.curve.samples(64).contains(where: node.box.contains),
                        "the arrow \(layout.nodes[arrow.from].name) → \(layout.nodes[arrow.to].name) runs through \(node.name)")
            }
        }
    }

    @Test func theSameTableGivesTheSameBytes() throws {
        let pairs = [
            (StateDiagram(TurnstileMachine.table), StateDiagram(TurnstileMachine.table)),
            (StateDiagram(try doorTable()), StateDiagram(try doorTable())),
            (StateDiagram(try barrierTable()), StateDiagram(try barrierTable())),
        ]
        for (first, second) in pairs {
            #expect(first == second)
            let a = DiagramLayout(first), b = DiagramLayout(second)
            #expect(a.svg(current: first.initial) == b.svg(current: second.initial))
            #expect(a.stateColors == b.stateColors)
        }
    }

    @Test func namesAndGuardsAreEscapedInTheDrawingAndTheStyle() throws {
        let door = try SVGDocument(DiagramLayout(StateDiagram(try doorTable())).svg(current: "shut"))
        #expect(door.labels.first { $0.from == "shut" && $0.to == "wide" }?.lines == ["shove", "[force < 3 & hinge", "<ok>]"])

        let names = ["<idle>", "a&b", #"say "hi""#, "it's"]
        let diagram = StateDiagram(states: names, initial: "<idle>", transitions: [
            .init(from: "<idle>", event: "go<", guardLabel: "<&>", to: "a&b"),
            .init(from: "a&b", event: "&", to: #"say "hi""#),
            .init(from: #"say "hi""#, event: "x", guardLabel: "y > 2 && z < 1", to: nil),
            .init(from: "it's", event: "'q'", to: "<idle>"),
        ])
        let layout = DiagramLayout(diagram)
        let raw = layout.svg(current: "<idle>")
        let svg = try SVGDocument(raw)
        #expect(svg.states == names)
        #expect(svg.current == ["<idle>"])
        Self.expectEveryRowDrawn(diagram, svg)
        for unescaped in ["<idle>", "<&>", #""hi""#, "go<", "z < 1", "a&b"] {
            #expect(!raw.contains(unescaped))
        }
        // The colours: a name that is not a CSS identifier is a quoted string that cannot close
        // the page's <style>.
        #expect(layout.stateColors.hasPrefix(#"[data-state="\3c idle\3e "]{--c:"#))
        #expect(layout.stateColors.contains(#"[data-state="say \"hi\""]"#))
        let page = StatusPage(daemonName: "turnstiled", gauges: ["credit"], diagram: layout).html(fixedSnapshot(state: "<idle>"))
        #expect(page.components(separatedBy: "</style").count == 2)
        #expect(!page.contains("<idle>"))
    }

    /// Random machines, names full of markup, drawn whole: one box per state in order, every
    /// row on an arrow, a stub, a list or the caption, nothing outside the picture, boxes apart,
    /// the same bytes twice, and well-formed XML throughout.
    @Test func randomMachinesAreDrawnWholeAndWellFormed() throws {
        var random = SplitMix64(seed: 0x5EED_D1A6)
        let suffixes = ["", "<", "&", "\"", "'", "é", " x", ">"]
        let guards: [String?] = [nil, nil, "a < b", "x & y", "ok", "a long guard that has to wrap onto a second line"]
        for _ in 0..<40 {
            let count = Int(random.next() % 6) + 1
            let states = (0..<count).map { "s\($0)" + suffixes[Int(random.next() % UInt64(suffixes.count))] }
            var transitions: [StateDiagram.Transition] = []
            var answered: Set<String> = []
            for _ in 0..<Int(random.next() % 14) {
                let from = states[Int(random.next() % UInt64(count))]
                let event = "e\(random.next() % 6)" + suffixes[Int(random.next() % UInt64(suffixes.count))]
                guard answered.insert(from + "\u{0}" + event).inserted else { continue }
                let target = Int(random.next() % UInt64(count + 1))
                let guardLabel = guards[Int(random.next() % UInt64(guards.count))]
                transitions.append(.init(from: from, event: event, guardLabel: guardLabel, to: target == count ? nil : states[target]))
            }
            if count >= 4, random.next() % 2 == 0 {
                let target = states[Int(random.next() % UInt64(count))]
                for from in states where from != target {
                    transitions.append(.init(from: from, event: "alarm", to: target))
                }
            }
            let initial = states[Int(random.next() % UInt64(count))]
            let current = states[Int(random.next() % UInt64(count))]
            let diagram = StateDiagram(states: states, initial: initial, transitions: transitions)
            let layout = DiagramLayout(diagram)
            let raw = layout.svg(current: current)
            let svg = try SVGDocument(raw)
            #expect(svg.states == states)
            #expect(svg.current == [current])
            Self.expectEveryRowDrawn(diagram, svg)
            #expect(DiagramLayout(diagram).svg(current: current) == raw)
            let drawn = layout.nodes.map(\.box) + layout.arrows.map(\.label.box) + layout.stubs.compactMap { $0.label?.box }
                + layout.arrows.flatMap { [$0.curve.start, $0.curve.end] }.map { DiagramBox(center: $0, width: 0, height: 0) }
            for box in drawn {
                #expect(layout.bounds.union(box) == layout.bounds, "\(box) lies outside the picture \(layout.bounds)")
            }
            for (i, node) in layout.nodes.enumerated() {
                for other in layout.nodes.dropFirst(i + 1) { #expect(node.box.overlap(other.box) == 0) }
            }
        }
    }
}

/// A seeded generator, so a failing case comes back on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
