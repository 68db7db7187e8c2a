/// Finds a cheap placement on a ``DiagramGrid``: first a descent (moves and swaps of single
/// states) from two starting placements, whose result bounds a branch-and-bound search of every
/// placement. A budget of steps keeps a big machine's start-up short; within it the search is
/// exact, past it the best found so far is kept.
struct DiagramGridSearch {
    typealias Cell = DiagramGrid.Cell

    /// Steps of the branch-and-bound search (one state tried in one cell each). The turnstile
    /// and the parking barrier need a few thousand; a machine of twenty states stops here after
    /// a fraction of a second and keeps the descent's placement or a better one.
    static let maxSteps = 200_000
    /// A bound on the descent's rounds; it usually settles in under ten.
    static let maxPasses = 40
    /// Costs closer than this are equal: rounding never makes two placements trade places.
    static let tolerance = 1e-9

    let grid: DiagramGrid

    func best() -> [Cell] {
        var best = [byDistance(), byDeclaration()].map(descend).min { grid.cost($0) < grid.cost($1) - Self.tolerance }!
        var bound = BranchAndBound(grid: grid, best: best)
        bound.run()
        best = bound.best
        return best
    }

    /// Columns by distance from the initial state, rows in declaration order; a full column
    /// spills into the next one with room.
    func byDistance() -> [Cell] {
        var cells = [Cell](repeating: Cell(column: 0, row: 0), count: grid.stateCount)
        var taken: [Cell] = []
        for state in grid.byDistance {
            let wanted = min(grid.distances[state], grid.columns - 1)
            let candidates = (0..<grid.columns).map { (wanted + $0) % grid.columns }.flatMap { column in
                (0..<grid.rows).map { Cell(column: column, row: $0) }
            }
            let cell = candidates.first { !taken.contains($0) }!
            cells[state] = cell
            taken.append(cell)
        }
        return cells
    }

    func byDeclaration() -> [Cell] {
        (0..<grid.stateCount).map { Cell(column: $0 % grid.columns, row: $0 / grid.columns) }
    }

    /// First-improvement descent over single moves and swaps.
    func descend(from start: [Cell]) -> [Cell] {
        var cells = start
        var current = grid.cost(cells)
        for _ in 0..<Self.maxPasses {
            var improved = false
            for state in 0..<grid.stateCount {
                for cell in grid.cells where cell != cells[state] {
                    var candidate = cells
                    if let other = cells.firstIndex(of: cell) { candidate[other] = cells[state] }
                    candidate[state] = cell
                    let cost = grid.cost(candidate)
                    if cost < current - Self.tolerance {
                        cells = candidate
                        current = cost
                        improved = true
                    }
                }
            }
            if !improved { break }
        }
        return cells
    }

    /// Places states one by one (nearest the initial one first) in every free cell, abandoning
    /// a partial placement as soon as it cannot beat the best whole one: what the links among
    /// its placed states cost, plus the least every other link can cost (its weight times the
    /// distance of neighbouring cells). Every term of the cost is positive, so this never
    /// abandons a placement that would have been better.
    struct BranchAndBound {
        let grid: DiagramGrid
        private(set) var best: [Cell]
        private var bestCost: Double
        private(set) var steps = 0
        /// Each state's cell, an index into `grid.cells`; meaningful while the state is placed.
        private var cellOf: [Int]
        private var placed: [Bool]
        private var taken: [Bool]
        /// The links whose both states are placed, as indices into `grid.links`.
        private var completed: [Int] = []
        private let order: [Int]
        private let centers: [DiagramPoint]
        private let boxes: [DiagramBox]
        /// Per state, its links: the state at the other end, and the link's index.
        private let linksOf: [[(other: Int, link: Int)]]
        /// The least one unit of link weight can cost: neighbouring cells.
        private let shortest: Double

        init(grid: DiagramGrid, best: [Cell]) {
            self.grid = grid
            self.best = best
            self.bestCost = grid.cost(best)
            self.cellOf = [Int](repeating: 0, count: grid.stateCount)
            self.placed = [Bool](repeating: false, count: grid.stateCount)
            self.taken = [Bool](repeating: false, count: grid.cells.count)
            self.order = grid.byDistance
            self.centers = grid.cells.map(grid.center)
            self.boxes = grid.cells.map(grid.box)
            var linksOf = [[(other: Int, link: Int)]](repeating: [], count: grid.stateCount)
            for (index, (a, b)) in grid.links.enumerated() {
                linksOf[a].append((b, index))
                linksOf[b].append((a, index))
            }
            self.linksOf = linksOf
            self.shortest = min(grid.cellWidth, grid.cellHeight) / grid.cellWidth
        }

        mutating func run() {
            branch(0, partial: 0, unplacedWeight: grid.weights.reduce(0, +))
        }

        private mutating func branch(_ depth: Int, partial: Double, unplacedWeight: Double) {
            guard depth < order.count else {
                let cells = cellOf.map { grid.cells[$0] }
                let cost = grid.cost(cells)
                if cost < bestCost - DiagramGridSearch.tolerance {
                    best = cells
                    bestCost = cost
                }
                return
            }
            let state = order[depth]
            let completing = linksOf[state].filter { placed[$0.other] }
            let weight = completing.reduce(0) { $0 + grid.weights[$1.link] }
            for cell in grid.cells.indices where !taken[cell] {
                guard steps < DiagramGridSearch.maxSteps else { return }
                steps += 1
                cellOf[state] = cell
                let added = addedCost(placing: state, completing: completing)
                let remaining = unplacedWeight - weight
                if partial + added + remaining * shortest < bestCost - DiagramGridSearch.tolerance {
                    placed[state] = true
                    taken[cell] = true
                    let before = completed.count
                    completed += completing.map(\.link)
                    branch(depth + 1, partial: partial + added, unplacedWeight: remaining)
                    completed.removeSubrange(before...)
                    placed[state] = false
                    taken[cell] = false
                }
            }
        }

        /// What placing `state` adds to the links among the placed states: the links it
        /// completes, with the obstacles and crossings they meet, and its box in the way of the
        /// links completed before.
        private func addedCost(placing state: Int, completing: [(other: Int, link: Int)]) -> Double {
            let here = centers[cellOf[state]]
            var total = 0.0
            for (other, link) in completing {
                let there = centers[cellOf[other]]
                total += here.distance(to: there) / grid.cellWidth * grid.weights[link]
                for third in placed.indices where placed[third] && third != other {
                    if boxes[cellOf[third]].isCrossed(from: here, to: there) { total += DiagramGrid.obstacleCost }
                }
                for earlier in completed {
                    let (c, d) = grid.links[earlier]
                    if c != other && d != other && segmentsCross(here, there, centers[cellOf[c]], centers[cellOf[d]]) {
                        total += DiagramGrid.crossingCost
                    }
                }
            }
            let box = boxes[cellOf[state]]
            for earlier in completed {
                let (a, b) = grid.links[earlier]
                if box.isCrossed(from: centers[cellOf[a]], to: centers[cellOf[b]]) { total += DiagramGrid.obstacleCost }
            }
            return total
        }
    }
}

extension DiagramGrid {
    /// The states nearest the initial one first, then in declaration order.
    var byDistance: [Int] {
        (0..<stateCount).sorted { (distances[$0], $0) < (distances[$1], $1) }
    }
}
