/// Points, boxes and quadratic curves in the diagram's units (SVG user units, y down).
struct DiagramPoint: Equatable {
    var x: Double
    var y: Double

    static func + (a: DiagramPoint, b: DiagramPoint) -> DiagramPoint { DiagramPoint(x: a.x + b.x, y: a.y + b.y) }
    static func - (a: DiagramPoint, b: DiagramPoint) -> DiagramPoint { DiagramPoint(x: a.x - b.x, y: a.y - b.y) }
    static func * (a: DiagramPoint, k: Double) -> DiagramPoint { DiagramPoint(x: a.x * k, y: a.y * k) }

    var length: Double { (x * x + y * y).squareRoot() }

    func distance(to other: DiagramPoint) -> Double { (other - self).length }
}

/// An axis-aligned rectangle.
struct DiagramBox: Equatable {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    init(center: DiagramPoint, width: Double, height: Double) {
        self.init(minX: center.x - width / 2, minY: center.y - height / 2, maxX: center.x + width / 2, maxY: center.y + height / 2)
    }

    var width: Double { maxX - minX }
    var height: Double { maxY - minY }
    var center: DiagramPoint { DiagramPoint(x: (minX + maxX) / 2, y: (minY + maxY) / 2) }

    func contains(_ point: DiagramPoint) -> Bool {
        point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
    }

    func inflated(by margin: Double) -> DiagramBox {
        DiagramBox(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    func union(_ other: DiagramBox) -> DiagramBox {
        DiagramBox(minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// The area both boxes cover; 0 when they do not meet.
    func overlap(_ other: DiagramBox) -> Double {
        max(0, min(maxX, other.maxX) - max(minX, other.minX)) * max(0, min(maxY, other.maxY) - max(minY, other.minY))
    }

    /// Whether the segment from `a` to `b` passes through the box (Liang–Barsky clipping).
    func isCrossed(from a: DiagramPoint, to b: DiagramPoint) -> Bool {
        var low = 0.0, high = 1.0
        /// Narrows [low, high] to where the segment is inside one edge; false when nothing is left.
        func clip(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let r = q / p
            if p < 0 { low = max(low, r) } else { high = min(high, r) }
            return low <= high
        }
        let dx = b.x - a.x, dy = b.y - a.y
        return clip(-dx, a.x - minX) && clip(dx, maxX - a.x) && clip(-dy, a.y - minY) && clip(dy, maxY - a.y)
    }
}

/// Whether two segments cross at a point inside both (touching ends do not count).
func segmentsCross(_ a: DiagramPoint, _ b: DiagramPoint, _ c: DiagramPoint, _ d: DiagramPoint) -> Bool {
    func side(_ p: DiagramPoint, _ q: DiagramPoint, _ r: DiagramPoint) -> Double {
        (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }
    let d1 = side(c, d, a), d2 = side(c, d, b), d3 = side(a, b, c), d4 = side(a, b, d)
    return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
}

/// A quadratic Bézier curve, the shape of every arrow between two states.
struct DiagramCurve: Equatable {
    var start: DiagramPoint
    var control: DiagramPoint
    var end: DiagramPoint

    func point(at t: Double) -> DiagramPoint {
        let u = 1 - t
        return start * (u * u) + control * (2 * u * t) + end * (t * t)
    }

    /// The direction of travel at `t` (not normalised).
    func tangent(at t: Double) -> DiagramPoint {
        (control - start) * (2 * (1 - t)) + (end - control) * (2 * t)
    }

    /// The part of the curve between `t0` and `t1`, itself a quadratic curve (its control
    /// point is the curve's polar form at `t0`, `t1`).
    func segment(from t0: Double, to t1: Double) -> DiagramCurve {
        let control = start * ((1 - t0) * (1 - t1)) + self.control * ((1 - t0) * t1 + t0 * (1 - t1)) + end * (t0 * t1)
        return DiagramCurve(start: point(at: t0), control: control, end: point(at: t1))
    }

    /// `count + 1` points along the curve, both ends included.
    func samples(_ count: Int) -> [DiagramPoint] {
        (0...count).map { point(at: Double($0) / Double(count)) }
    }

    /// The first `t` going from `from` towards `towards` at which the curve is outside `box`,
    /// to a 1/1024 of the curve: where an arrow leaves (or, walked backwards, enters) a node.
    func exit(from: Double, towards: Double, box: DiagramBox) -> Double {
        var inside = from, outside = towards
        guard !box.contains(point(at: outside)) else { return outside }
        for _ in 0..<10 {
            let middle = (inside + outside) / 2
            if box.contains(point(at: middle)) { inside = middle } else { outside = middle }
        }
        return outside
    }
}
