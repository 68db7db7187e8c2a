/// Where each state sits: a cell of a small grid, chosen so that linked states are near each
/// other, no line between two states runs through a third, few lines cross, and the drawing
/// has the card's shape.
///
/// The placement is the cheapest under ``cost(_:)`` that ``DiagramGridSearch`` finds: a
/// descent from two starting placements, then a branch-and-bound search of every placement
/// within a budget of work. Both go through cells and states in a fixed order and keep the
/// first of equal placements: same input, same cells.
struct DiagramGrid {
    struct Cell: Equatable {
        var column: Int
        var row: Int
    }

    /// The cost of a link drawn through a third state's box, in cell widths of line.
    static let obstacleCost = 4.0
    /// The cost of two links crossing.
    static let crossingCost = 2.0
    /// The cost of a link that runs against the reading order (right to left) from a state
    /// nearer the initial one: with everything else equal, the machine reads left to right.
    static let backwardsCost = 0.05
    /// Pulls the initial state towards the top left, everything else equal.
    static let initialCornerCost = 0.01
    /// The shape the page shows best, width over height (the card beside the state's is about
    /// 700 by 360), and what each time as far from it costs.
    static let targetAspect = 1.8
    static let aspectCost = 1.0
    /// Room kept around a box for lines that pass it.
    static let obstacleMargin = 8.0
    /// The cost of a state sitting inside the frame of a superstate it is not in (the frame is
    /// the smallest rectangle of cells around the superstate's states).
    static let frameIntrusionCost = 6.0

    let stateCount: Int
    /// Linked states, each pair once, the lower index first.
    let links: [(Int, Int)]
    /// What a unit of each link's length costs: the arrows it carries (one or two), so that
    /// states joined both ways (drawn as two curves) sit closest.
    let weights: [Double]
    /// Moves that lead away from the initial state (to a state farther from it).
    let outward: [(Int, Int)]
    let initial: Int
    /// Each state's distance in moves from the initial state.
    let distances: [Int]
    let columns: Int
    let rows: Int
    let cellWidth: Double
    let cellHeight: Double
    let nodeWidth: Double
    let nodeHeight: Double

    /// - Parameters:
    ///   - moves: Every arrow as (from, to), state indices, repeats allowed: what is drawn as a
    ///     line between two boxes.
    ///   - distances: Each state's distance in moves from the initial state (unreachable ones
    ///     past the farthest).
    /// The states of each superstate, drawn in one frame.
    let groups: [[Int]]

    init(stateCount: Int, moves: [(Int, Int)], distances: [Int], initial: Int,
         cellWidth: Double, cellHeight: Double, nodeWidth: Double, nodeHeight: Double, groups: [[Int]] = []) {
        self.stateCount = stateCount
        self.groups = groups
        var links: [(Int, Int)] = []
        var weights: [Double] = []
        var seen: [(Int, Int)] = []
        for move in moves where !seen.contains(where: { $0 == move }) {
            seen.append(move)
            let link = (min(move.0, move.1), max(move.0, move.1))
            if let found = links.firstIndex(where: { $0 == link }) {
                weights[found] += 1
            } else {
                links.append(link)
                weights.append(1)
            }
        }
        self.links = links
        self.weights = weights
        self.outward = moves.filter { distances[$0.0] < distances[$0.1] }
        self.initial = initial
        self.distances = distances
        // Roughly twice as wide as tall, with a spare column to move into.
        let rows = stateCount <= 2 ? 1 : Int((Double(stateCount) / 2).squareRoot().rounded(.up)) + 1
        self.rows = rows
        let columns = (stateCount + rows - 1) / rows + 1
        self.columns = columns
        self.cells = (0..<rows).flatMap { row in (0..<columns).map { Cell(column: $0, row: row) } }
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.nodeWidth = nodeWidth
        self.nodeHeight = nodeHeight
    }

    /// Every cell, row by row.
    let cells: [Cell]

    /// Each state's cell, with empty rows and columns removed.
    func place() -> [Cell] {
        guard stateCount > 0 else { return [] }
        return compacted(DiagramGridSearch(grid: self).best())
    }

    func center(_ cell: Cell) -> DiagramPoint {
        DiagramPoint(x: Double(cell.column) * cellWidth, y: Double(cell.row) * cellHeight)
    }

    func box(at cell: Cell) -> DiagramBox {
        DiagramBox(center: center(cell), width: nodeWidth, height: nodeHeight).inflated(by: Self.obstacleMargin)
    }

    /// What a placement costs: the links' lengths and the obstacles and crossings they meet
    /// (``linkCost(_:)``), and the shape and reading order of the whole.
    func cost(_ cells: [Cell]) -> Double {
        linkCost(cells) + shapeCost(cells)
    }

    func linkCost(_ cells: [Cell]) -> Double {
        let centers = cells.map(center)
        var total = 0.0
        for ((a, b), weight) in zip(links, weights) {
            total += centers[a].distance(to: centers[b]) / cellWidth * weight
            for other in 0..<stateCount where other != a && other != b {
                if box(at: cells[other]).isCrossed(from: centers[a], to: centers[b]) { total += Self.obstacleCost }
            }
        }
        for i in links.indices {
            for j in links.indices.dropFirst(i + 1) where crosses(links[i], links[j], cells) {
                total += Self.crossingCost
            }
        }
        return total
    }

    func crosses(_ first: (Int, Int), _ second: (Int, Int), _ cells: [Cell]) -> Bool {
        let (a, b) = first, (c, d) = second
        guard a != c, a != d, b != c, b != d else { return false }
        return segmentsCross(center(cells[a]), center(cells[b]), center(cells[c]), center(cells[d]))
    }

    func shapeCost(_ cells: [Cell]) -> Double {
        var total = 0.0
        for (from, to) in outward where cells[to].column < cells[from].column {
            total += Self.backwardsCost
        }
        let aspect = Double(Set(cells.map(\.column)).count) * cellWidth / (Double(Set(cells.map(\.row)).count) * cellHeight)
        total += (max(aspect / Self.targetAspect, Self.targetAspect / aspect) - 1) * Self.aspectCost
        let corner = cells[initial]
        total += (Double(corner.column) + Double(corner.row)) * Self.initialCornerCost
        for group in groups where !group.isEmpty {
            let columns = group.map { cells[$0].column }, rows = group.map { cells[$0].row }
            let (left, right, top, bottom) = (columns.min()!, columns.max()!, rows.min()!, rows.max()!)
            for state in 0..<stateCount where !group.contains(state) {
                let cell = cells[state]
                if (left...right).contains(cell.column) && (top...bottom).contains(cell.row) { total += Self.frameIntrusionCost }
            }
        }
        return total
    }

    /// The same placement without empty rows and columns.
    func compacted(_ cells: [Cell]) -> [Cell] {
        let usedColumns = Set(cells.map(\.column)).sorted()
        let usedRows = Set(cells.map(\.row)).sorted()
        return cells.map {
            Cell(column: usedColumns.firstIndex(of: $0.column)!, row: usedRows.firstIndex(of: $0.row)!)
        }
    }
}
