/// Draws a laid-out diagram's arrows and places their labels, one after the other, each where it
/// covers the least of what is already drawn. Every choice is the first of a fixed list of
/// candidates that does best, so the same boxes always give the same drawing.
struct DiagramRouter {
    /// Space between a label and its line or its neighbours.
    static let labelClearance = 6.0
    /// Around everything drawn, inside the viewBox.
    static let margin = 10.0
    /// How far an arrow keeps from a box it passes.
    static let nodeClearance = 6.0
    /// Between an arrow's tip and the box it points at.
    static let arrowGap = 2.0
    /// How far an arrow's middle may stand off the straight line, in order of preference. Two
    /// arrows between the same states bend (each to its right) so they stay apart.
    static let twoWayBends: [Double] = [22, 50, 80, 110, 140]
    static let oneWayBends: [Double] = [0, 30, -30, 60, -60, 90, -90, 120, -120]
    /// Where along its arrow a label may sit, in order of preference.
    static let labelPositions: [Double] = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]
    /// Points per arrow checked against boxes and labels.
    static let curveSamples = 24
    /// A stub's length from its label or dot to the box.
    static let stubLength = 40.0
    static let initialStubLength = 24.0
    /// What a stub costs per square unit it adds to the drawing's bounds: everything else
    /// equal, a stub goes where the drawing stays compact.
    static let growthCost = 0.005

    let nodes: [DiagramLayout.Node]
    /// Everything placed so far: boxes, labels and the arrows' points.
    private(set) var occupied = DiagramOccupancy()

    init(nodes: [DiagramLayout.Node]) {
        self.nodes = nodes
        for node in nodes { occupied.add(node: node.box) }
    }

    /// The arrow from one state's box to another's, around the boxes between them, and its
    /// label on it.
    mutating func arrow(from: Int, to: Int, lines: [DiagramLabel.Line], twoWay: Bool) -> DiagramLayout.Arrow {
        let a = nodes[from].box.center, b = nodes[to].box.center
        let direction = b - a
        let right = DiagramPoint(x: -direction.y, y: direction.x) * (1 / direction.length)
        var best: (curve: DiagramCurve, hits: Int)?
        for bend in twoWay ? Self.twoWayBends : Self.oneWayBends {
            let whole = DiagramCurve(start: a, control: (a + b) * 0.5 + right * (2 * bend), end: b)
            let t0 = whole.exit(from: 0, towards: 1, box: nodes[from].box)
            let t1 = whole.exit(from: 1, towards: 0, box: nodes[to].box.inflated(by: Self.arrowGap))
            let curve = whole.segment(from: t0, to: t1)
            let hits = obstacleHits(curve, sparing: [from, to])
            if best == nil || hits < best!.hits { best = (curve, hits) }
            if hits == 0 { break }
        }
        let curve = best!.curve
        let label = placeLabel(DiagramLabel(lines: lines), along: curve)
        occupied.add(curve.samples(Self.curveSamples))
        occupied.add(label: label.box)
        return DiagramLayout.Arrow(from: from, to: to, curve: curve, label: label)
    }

    /// A short arrow into `state` from the side of its box where it covers least, with its
    /// label (or the initial state's dot) at its outer end.
    mutating func stub(into state: Int, label: DiagramLabel?) -> DiagramLayout.Stub {
        let box = nodes[state].box
        let length = label == nil ? Self.initialStubLength : Self.stubLength
        let sides: [DiagramPoint] = label == nil
            ? [DiagramPoint(x: -1, y: 0), DiagramPoint(x: 0, y: -1), DiagramPoint(x: 1, y: 0), DiagramPoint(x: 0, y: 1)]
            : [DiagramPoint(x: 1, y: 0), DiagramPoint(x: -1, y: 0), DiagramPoint(x: 0, y: 1), DiagramPoint(x: 0, y: -1)]
        var best: (stub: DiagramLayout.Stub, cost: Double)?
        let before = occupied.bounds ?? box
        for side in sides {
            let edge = box.center + DiagramPoint(x: side.x * box.width / 2, y: side.y * box.height / 2)
            let end = edge + side * Self.arrowGap
            let start = edge + side * length
            let placed = label.map { label in
                // Beyond the start, on the stub's line, clear of it.
                let half = DiagramPoint(x: side.x * (label.box.width / 2 + Self.labelClearance), y: side.y * (label.box.height / 2 + Self.labelClearance))
                return label.moved(to: start + half)
            }
            let line = Self.box(from: start, to: end)
            let after = before.union(line).union(placed?.box ?? line)
            // The initial state's marker goes where the convention puts it, on the left, if it can.
            let growth = label == nil ? 0 : after.width * after.height - before.width * before.height
            let cost = occupied.cost(of: line.inflated(by: Self.labelClearance))
                + (placed.map { occupied.cost(ofLabel: $0.box, clearance: Self.labelClearance / 2) } ?? 0) + growth * Self.growthCost
            if best == nil || cost < best!.cost {
                best = (DiagramLayout.Stub(to: state, start: start, end: end, label: placed), cost)
            }
            if cost == 0 { break }
        }
        let stub = best!.stub
        occupied.add(Self.box(from: stub.start, to: stub.end))
        if let label = stub.label { occupied.add(label: label.box) }
        return stub
    }

    static func box(from a: DiagramPoint, to b: DiagramPoint) -> DiagramBox {
        DiagramBox(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y))
    }

    /// How many of the curve's points fall in a box it should pass: any state's but its own
    /// two, and any label placed so far.
    func obstacleHits(_ curve: DiagramCurve, sparing own: [Int]) -> Int {
        let obstacles = nodes.indices.filter { !own.contains($0) }.map { nodes[$0].box.inflated(by: Self.nodeClearance) }
            + occupied.labels
        return curve.samples(Self.curveSamples).filter { point in obstacles.contains { $0.contains(point) } }.count
    }

    /// The label on the curve (its halo cuts the line, so it reads as the line's own), at the
    /// first position along it that covers least; beside it, on the side it bends to and then
    /// on the other, when every position on it covers something.
    func placeLabel(_ label: DiagramLabel, along curve: DiagramCurve) -> DiagramLabel {
        let bulge = curve.control - (curve.start + curve.end) * 0.5
        var best: (label: DiagramLabel, cost: Double)?
        // On the line, then beside it on the side it bends to, then on the other side.
        for side in [0.0, 1, -1] {
            for t in Self.labelPositions {
                var candidate = label.moved(to: curve.point(at: t))
                if side != 0 {
                    let tangent = curve.tangent(at: t)
                    var normal = DiagramPoint(x: -tangent.y, y: tangent.x) * (1 / max(tangent.length, 1e-9))
                    if normal.x * bulge.x + normal.y * bulge.y < 0 { normal = normal * -1 }
                    normal = normal * side
                    let offset = abs(normal.x) * label.box.width / 2 + abs(normal.y) * label.box.height / 2 + Self.labelClearance
                    candidate = candidate.moved(to: candidate.box.center + normal * offset)
                }
                let cost = occupied.cost(ofLabel: candidate.box, clearance: Self.labelClearance / 2)
                if best == nil || cost < best!.cost { best = (candidate, cost) }
                if cost == 0 { return candidate }
            }
        }
        return best!.label
    }
}

/// What a diagram has drawn so far, for placing the next thing where it covers least.
struct DiagramOccupancy {
    /// What covering one point of a line costs, in square units of covered box.
    static let coveredPointCost = 40.0
    /// What a label covering a square unit of a state's box or of another label costs: more
    /// than any amount of lines, so a label lies on a box or a label only when every place it
    /// may go does.
    static let coveredNodeCost = 1_000_000.0

    /// The labels' and lines' boxes.
    private(set) var boxes: [DiagramBox] = []
    /// The states' boxes.
    private(set) var nodes: [DiagramBox] = []
    /// The boxes of labels alone (they are in `boxes` too): arrows go around them.
    private(set) var labels: [DiagramBox] = []
    private(set) var points: [DiagramPoint] = []

    mutating func add(_ box: DiagramBox) {
        boxes.append(box)
    }

    mutating func add(node box: DiagramBox) {
        nodes.append(box)
    }

    mutating func add(label box: DiagramBox) {
        boxes.append(box)
        labels.append(box)
    }

    mutating func add(_ points: [DiagramPoint]) {
        self.points += points
    }

    /// What placing `box` costs: the area it covers, each line point at `coveredPointCost`.
    func cost(of box: DiagramBox) -> Double {
        (boxes + nodes).reduce(0) { $0 + box.overlap($1) } + Double(points.filter(box.contains).count) * Self.coveredPointCost
    }

    /// What placing a label costs: as `cost(of:)` with its clearance, and `coveredNodeCost` for
    /// each square unit of the label itself on a state's box or on another label.
    func cost(ofLabel box: DiagramBox, clearance: Double) -> Double {
        cost(of: box.inflated(by: clearance)) + (nodes + labels).reduce(0) { $0 + box.overlap($1) } * Self.coveredNodeCost
    }

    /// The smallest box around everything, `nil` before anything is placed.
    var bounds: DiagramBox? {
        let pointBoxes = points.map { DiagramBox(minX: $0.x, minY: $0.y, maxX: $0.x, maxY: $0.y) }
        let all = nodes + boxes + pointBoxes
        guard let first = all.first else { return nil }
        return all.reduce(first) { $0.union($1) }
    }
}
