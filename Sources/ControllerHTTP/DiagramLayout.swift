/// A ``StateDiagram`` laid out for the page: every box, arrow, label and list in SVG units.
/// Computed once when the server is made (a daemon's table does not change while it runs);
/// the same diagram always gives the same layout.
///
/// What is drawn how, to stay readable at eight states and thirty rows:
/// - a state is a rounded box on a grid (``DiagramGrid``), all boxes as wide as the widest and
///   a row's boxes as tall as its tallest;
/// - the rows from one state to another are one arrow, labelled with each row's event and guard;
/// - rows that stay in their state (internal, or leaving and re-entering it, marked ↻) are
///   listed in its box under its name, as UML lists a state's internal transitions; events
///   every state answers that way are said once, in a caption;
/// - an event that leads to one state from every other is one short arrow into it, labelled
///   "from any state", instead of an arrow from each;
/// - a dot and an arrow mark the initial state.
struct DiagramLayout {
    struct Node {
        let name: String
        let box: DiagramBox
        /// The rows that stay in this state, in its box under its name.
        let stays: DiagramLabel?

        /// The baseline of the state's name.
        var nameBaseline: Double { box.minY + DiagramLayout.nameBaseline }
    }

    struct Arrow {
        let from: Int
        let to: Int
        let curve: DiagramCurve
        let label: DiagramLabel
    }

    /// A superstate: a rounded frame around its states' boxes, its name at the top left.
    struct Frame {
        let name: String
        let box: DiagramBox
        let isParallel: Bool
        /// The baseline of its name.
        var nameBaseline: Double { box.minY + DiagramLayout.frameNameBaseline }
    }

    /// A short straight arrow into a state from nowhere in particular.
    struct Stub {
        let to: Int
        let start: DiagramPoint
        let end: DiagramPoint
        /// `nil` for the initial state's marker, which starts at a dot.
        let label: DiagramLabel?
    }

    /// Rows leading to one state from at least this many others, all of them, are one stub.
    static let anyStateMinimumSources = 3
    /// A box with a name alone; a list makes it taller.
    static let nodeHeight = 44.0
    static let nameBaseline = 27.0
    static let minNodeWidth = 96.0
    /// Room beside a state's name, and beside its list, in its box.
    static let namePadding = 30.0
    static let listPadding = 16.0
    /// Where a box's list begins below its top, and the room under the list.
    static let listTop = 36.0
    static let listBottom = 8.0
    /// Space between the columns of boxes, for the labels of the arrows between them.
    static let minColumnGap = 96.0
    static let maxColumnGap = 180.0
    /// Space between rows of boxes.
    static let rowGap = 64.0
    /// Room between a frame and what is inside it (a box or a smaller frame), and above the
    /// boxes for the frame's name.
    static let framePadding = 8.0
    static let frameNameRoom = 14.0
    static let frameNameBaseline = 12.0

    let nodes: [Node]
    let arrows: [Arrow]
    let stubs: [Stub]
    /// The superstates' frames, outermost first (drawn behind what they hold).
    let frames: [Frame]
    /// Events every state answers without leaving, said once under the drawing.
    let caption: DiagramLabel?
    /// Everything drawn, with a margin: the SVG's viewBox.
    let bounds: DiagramBox

    init(_ diagram: StateDiagram) {
        let rows = DiagramRows(diagram)
        let count = diagram.states.count
        let lists = rows.stays.map { $0.map { DiagramLabel(lines: $0) } }
        let nodeWidth = max(
            Self.minNodeWidth,
            (diagram.states.map { DiagramText.width($0, .name) }.max() ?? 0) + Self.namePadding,
            (lists.compactMap { $0?.box.width }.max() ?? 0) + Self.listPadding)
        let heights = lists.map { list in list.map { Self.listTop + $0.box.height + Self.listBottom } ?? Self.nodeHeight }
        let widestLabel = rows.arrows.map { DiagramLabel(lines: $0.lines).box.width }.max() ?? 0
        let columnGap = min(Self.maxColumnGap, max(Self.minColumnGap, widestLabel + 2 * DiagramRouter.labelClearance))

        let grid = DiagramGrid(
            stateCount: count, moves: rows.drawnMoves, distances: rows.distances, initial: rows.initial,
            cellWidth: nodeWidth + columnGap, cellHeight: (heights.max() ?? 0) + Self.rowGap,
            nodeWidth: nodeWidth, nodeHeight: heights.max() ?? 0, groups: diagram.superstates.map(\.members))
        let cells = count > 0 ? grid.place() : []

        let columnCount = (cells.map(\.column).max() ?? -1) + 1
        var rowHeights = [Double](repeating: 0, count: (cells.map(\.row).max() ?? -1) + 1)
        for (state, cell) in cells.enumerated() {
            rowHeights[cell.row] = max(rowHeights[cell.row], heights[state])
        }
        let columnCenters = (0..<columnCount).map { nodeWidth / 2 + Double($0) * (nodeWidth + columnGap) }
        var rowTops: [Double] = []
        var y = 0.0
        for height in rowHeights {
            rowTops.append(y)
            y += height + Self.rowGap
        }

        nodes = cells.enumerated().map { state, cell in
            let box = DiagramBox(
                minX: columnCenters[cell.column] - nodeWidth / 2, minY: rowTops[cell.row],
                maxX: columnCenters[cell.column] + nodeWidth / 2, maxY: rowTops[cell.row] + rowHeights[cell.row])
            let list = lists[state].map { $0.moved(topLeft: DiagramPoint(x: box.center.x - $0.box.width / 2, y: box.minY + Self.listTop)) }
            return Node(name: diagram.states[state], box: box, stays: list)
        }

        var router = DiagramRouter(nodes: nodes)
        arrows = rows.arrows.map { router.arrow(from: $0.from, to: $0.to, lines: $0.lines, twoWay: rows.isTwoWay($0)) }
        var stubs: [Stub] = []
        if count > 0 {
            stubs.append(router.stub(into: rows.initial, label: nil))
        }
        for group in rows.fromAnyState {
            stubs.append(router.stub(into: group.to, label: DiagramLabel(lines: group.lines)))
        }
        self.stubs = stubs

        // A frame holding others is padded around them: the innermost ones first.
        var frames: [Frame] = []
        let boxes = nodes.map(\.box)
        for superstate in diagram.superstates.reversed() where !superstate.members.isEmpty {
            var box = superstate.members.dropFirst().reduce(boxes[superstate.members[0]]) { $0.union(boxes[$1]) }
            for inner in frames where Set(diagram.superstates.first { $0.name == inner.name }?.members ?? []).isSubset(of: superstate.members) {
                box = box.union(inner.box)
            }
            box = DiagramBox(
                minX: box.minX - Self.framePadding, minY: box.minY - Self.framePadding - Self.frameNameRoom,
                maxX: box.maxX + Self.framePadding, maxY: box.maxY + Self.framePadding)
            frames.append(Frame(name: superstate.name, box: box, isParallel: superstate.isParallel))
        }
        var drawn = router.occupied.bounds ?? DiagramBox(minX: 0, minY: 0, maxX: 0, maxY: 0)
        for frame in frames { drawn = drawn.union(frame.box) }
        self.frames = frames.reversed()
        caption = rows.caption.map {
            DiagramLabel(lines: $0).moved(topLeft: DiagramPoint(x: drawn.minX, y: drawn.maxY + DiagramRouter.labelClearance))
        }
        bounds = (caption.map { drawn.union($0.box) } ?? drawn).inflated(by: DiagramRouter.margin)
    }
}
