import ControllerFSM
import ControllerSCXML

/// Where a chart controller's states, events and declaration are held once its chart is loaded:
/// a caseless enum of the program's own (a test's own, for each chart it loads), so that the
/// names travel with the machine's types and two charts in one process never share them.
///
/// ```swift
/// enum DoorChart: ChartSpace { static let slot = ChartSlot<DoorChart>() }
/// ```
public protocol ChartSpace: DocumentSymbolSpace {
    /// The chart once loaded (``ChartLoader/load(bindingFile:into:)``).
    static var slot: ChartSlot<Self> { get }
}

extension ChartSpace {
    public static var symbols: DocumentSymbolTable { slot.symbols }
}

/// A chart loaded into its space: set once, before anything runs, and read from any thread
/// after. Loading a second chart into one space is refused (its states would be renumbered
/// under a machine already running).
public final class ChartSlot<Space: ChartSpace>: Sendable {
    private struct Held {
        var symbols = DocumentSymbolTable.empty
        var chart: LoadedChart<Space>?
    }

    private let held = Guarded(Held())

    public init() {}

    /// The chart's states and events (empty before a chart is loaded).
    public var symbols: DocumentSymbolTable { held.withLock { $0.symbols } }

    /// The loaded chart; stops the program, saying what to do, when none is.
    public var chart: LoadedChart<Space> {
        guard let chart = held.withLock({ $0.chart }) else {
            fatalError("no chart is loaded into \(Space.self): ChartLoader.load(bindingFile:into:) comes before anything reads the controller")
        }
        return chart
    }

    /// Whether a chart is loaded.
    public var isLoaded: Bool { held.withLock { $0.chart != nil } }

    /// The symbols, first: the machine is compiled reading them.
    func install(symbols: DocumentSymbolTable) throws(ChartLoadError) {
        try held.withLock { (held: inout Held) throws(ChartLoadError) in
            guard held.chart == nil, held.symbols.states.isEmpty else { throw ChartLoadError.spaceTaken(space: "\(Space.self)") }
            held.symbols = symbols
        }
    }

    func install(chart: LoadedChart<Space>) {
        held.withLock { $0.chart = chart }
    }

    /// Gives the space back after a load that failed half way.
    func clear() {
        held.withLock { $0 = Held() }
    }
}
