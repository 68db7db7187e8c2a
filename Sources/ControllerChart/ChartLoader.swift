import ControllerFSM
import ControllerHost
import ControllerSCXML

/// Loads a chart controller: its binding file, the chart it names, each binding checked
/// against the chart, the machine built in the space and the declaration made. Every refusal
/// names the binding file's key path or the chart's line.
public enum ChartLoader {
    /// The program that runs chart controllers.
    public static let daemonName = "chartd"
    /// Room for the events a chart raises in one step (the core's queue of sent events).
    public static let internalQueueCapacity = 32

    /// Loads the binding file at `path`, and the chart it names, into `space`.
    @discardableResult
    public static func load<Space: ChartSpace>(bindingFile path: String, into space: Space.Type) throws(ChartLoadError) -> LoadedChart<Space> {
        let binding: ChartBinding
        do { binding = try ChartBinding.read(path: path) } catch { throw .binding(error) }
        return try load(binding, into: space)
    }

    /// Loads `binding` (read already) and the chart it names, into `space`.
    public static func load<Space: ChartSpace>(_ binding: ChartBinding, into _: Space.Type) throws(ChartLoadError) -> LoadedChart<Space> {
        let chartFile = path(binding.chart, besideFile: binding.file)
        let document: SCXMLDocument
        do { document = try SCXMLRunner.document(file: chartFile) } catch { throw .chart(error) }
        if let named = document.datamodel, !IntegerDatamodel.names.contains(named), !SCXMLRunner.readAsFirstDatamodel.contains(named) {
            throw .chart(.unsupported(file: chartFile, line: document.line, element: "scxml",
                                      reason: "datamodel=\"\(named.shown)\": a chart controller reads the integer datamodel (integers, In(), true and false)"))
        }
        let check = BindingCheck(binding: binding, document: document)
        let bindingNotes = try check.eventsTaken()
        let symbols: DocumentSymbolTable
        do {
            symbols = try MachineBuilder<IntegerDatamodel>.symbols(for: document, externalEvents: check.boundEvents)
        } catch {
            throw .chart(error)
        }
        try Space.slot.install(symbols: symbols)
        do throws(ChartLoadError) {
            let machine: ChartMachine<IntegerDatamodel, Space>
            let timers: [ChartTimers.DelayedSend]
            do {
                timers = try ChartTimers.timers(of: document)
                machine = try MachineBuilder<IntegerDatamodel>.build(
                    document, symbols: symbols, options: ChartBuildOptions(delayedSendsAsTimers: true), in: Space.self)
            } catch {
                throw ChartLoadError.chart(error)
            }
            let declaration = try Declaration<Space>(binding: binding, check: check, machine: machine, timers: timers)
            let board = try binding.board.map { (board) throws(ChartLoadError) in
                let path = path(board, besideFile: binding.file)
                return BuiltInBoard(text: try text(of: path, at: "chart.board", in: binding), file: path)
            }
            let demo = try binding.demo.map { (demo) throws(ChartLoadError) in
                try text(of: path(demo, besideFile: binding.file), at: "chart.demo", in: binding)
            }
            let chart = LoadedChart(
                bindingFile: binding.file, chartFile: chartFile, machine: machine, binding: binding, timers: timers,
                name: binding.name ?? document.name ?? stem(of: chartFile),
                summary: binding.summary ?? "The \(binding.name ?? document.name ?? stem(of: chartFile)) controller: the chart \(chartFile), on real GPIO or simulated.",
                settings: declaration.settings(name: binding.name ?? document.name ?? stem(of: chartFile)),
                inputs: declaration.inputs, outputs: declaration.outputs, counters: declaration.counters,
                commands: declaration.commands, invariants: declaration.invariants, counterSlots: declaration.counterSlots, settingSlots: declaration.settingSlots,
                stateCounts: declaration.stateCounts, homeAssistant: declaration.homeAssistant, builtInBoard: board,
                demoScenario: demo, notes: document.notes + bindingNotes)
            Space.slot.install(chart: chart)
            return chart
        } catch {
            Space.slot.clear()
            throw error
        }
    }

    /// The largest board file or demo scenario a binding names.
    static let maximumFileBytes = 1024 * 1024

    /// A file the binding names, read whole; refused by the binding's key path.
    static func text(of path: String, at keyPath: String, in binding: ChartBinding) throws(ChartLoadError) -> String {
        do { return try TextFile.contents(path: path, limit: maximumFileBytes) } catch {
            throw .binding(BoardFileError(file: binding.file, location: .keyPath(keyPath), reason: "\(path): \(error.reason)", hint: nil))
        }
    }

    /// `relative` read from beside `file` (as written when absolute).
    static func path(_ relative: String, besideFile file: String) -> String {
        guard !relative.hasPrefix("/"), let slash = file.lastIndex(of: "/") else { return relative }
        return String(file[...slash]) + relative
    }

    /// The file's name without its directory and extension: a chart's name when it gives none.
    static func stem(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.split(separator: ".").first.map(String.init) ?? name
    }
}

/// The binding's names checked against the chart.
struct BindingCheck {
    let binding: ChartBinding
    let document: SCXMLDocument

    /// Every event the binding sends into the chart (inputs and commands), each once.
    var boundEvents: [String] {
        var names: [String] = []
        for input in binding.inputs {
            switch input.kind {
            case .pulse(let event): names.append(event)
            case .level(let on, let off), .condition(let on, let off): names += [on, off]
            }
        }
        names += binding.commands.map(\.name)
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    /// Refuses an event no transition of the chart takes: a misspelt name would be sent and
    /// never answered. A level that keeps a `<data>` reaches the chart through it as well: an
    /// event of its that no transition takes is said in a note, not refused.
    /// - Returns: the notes.
    func eventsTaken() throws(ChartLoadError) -> [String] {
        var notes: [String] = []
        for input in binding.inputs {
            switch input.kind {
            case .pulse(let event):
                try taken(event, at: input.keyPath + ".pulse")
            case .level(let on, let off):
                for event in [on, off] {
                    if let data = input.data, !document.someTransitionTakes(event) {
                        notes.append("\(binding.file): \(input.keyPath).level: no transition of \(document.file) takes \"\(event.shown)\"; the level reaches the chart through <data> \(data.shown)")
                    } else {
                        try taken(event, at: input.keyPath + ".level")
                    }
                }
            case .condition(let on, let off):
                try taken(on, at: input.keyPath + ".condition")
                try taken(off, at: input.keyPath + ".condition")
            }
        }
        for command in binding.commands { try taken(command.name, at: command.keyPath) }
        return notes
    }

    private func taken(_ event: String, at keyPath: String) throws(ChartLoadError) {
        guard !document.someTransitionTakes(event) else { return }
        let known = document.takenEventDescriptors
        let hint = Suggestion.didYouMean(event, in: known).map { "\($0) " } ?? ""
        throw .binding(BoardFileError(
            file: binding.file, location: .keyPath(keyPath),
            reason: "no transition of \(document.file) takes the event \"\(event.shown)\"",
            hint: hint + (known.isEmpty ? "the chart's transitions take no event" : "its transitions take \(known.joined(separator: ", "))")))
    }
}
