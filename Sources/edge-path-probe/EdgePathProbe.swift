// The event path's own cost, in instructions, deterministically: drives edges through the
// turnstile's `Controller` on the simulated chip, wired and with rings as `turnstiled run` has
// them, and switches callgrind's collection on right after the edge read returns and off at
// the first output write (`read-to-write`) or when `process(now:)` returns (`read-to-return`).
// Only the edges that move the lock are measured (a coin's press unlocks, a push's press
// locks); the releases between them run uncounted.
//
//   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=OUT \
//       .build/release/edge-path-probe read-to-write 2000
//
// `scripts/edge-path-callgrind.sh` runs both and prints the instructions per edge.
import CCallgrindMarks
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Turnstile

#if canImport(Glibc)
import Glibc
#endif

/// Which part of the path callgrind counts.
enum Span: String {
    /// From the edge read's return to the first output write (the relay changing).
    case readToWrite = "read-to-write"
    /// From the edge read's return to the end of the `process(now:)` call that read it.
    case readToReturn = "read-to-return"
}

/// Where the marks stand. One thread: the probe's, which is the controller's.
final class Marks {
    let span: Span
    /// Whether the next edge read starts a measured span.
    var armed = false
    private(set) var collecting = false
    private(set) var spans = 0

    init(span: Span) { self.span = span }

    func afterRead(count: Int) {
        guard armed, count > 0, !collecting else { return }
        armed = false
        toggle()
        spans += 1
    }

    func beforeWrite() {
        if span == .readToWrite && collecting { toggle() }
    }

    func afterProcess() {
        if collecting { toggle() }
    }

    private func toggle() {
        ccgm_toggle_collect()
        collecting.toggle()
    }
}

/// The simulated chip with the marks around its reads and writes: every call is the chip's own.
struct MarkedChip: GPIOChip {
    let chip: SimChip
    let marks: Marks

    var info: GPIOChipInfo { chip.info }
    func offset(ofLineNamed name: String) throws(GPIOError) -> GPIOLineOffset { try chip.offset(ofLineNamed: name) }
    func lineInfo(at offset: GPIOLineOffset) throws(GPIOError) -> GPIOLineInfo { try chip.lineInfo(at: offset) }
    func requestInputs(_ lines: [InputLineSettings], consumer: String) throws(GPIOError) -> MarkedInputs {
        MarkedInputs(request: try chip.requestInputs(lines, consumer: consumer), marks: marks)
    }
    func requestOutputs(_ lines: [OutputLineSettings], consumer: String) throws(GPIOError) -> MarkedOutputs {
        MarkedOutputs(request: try chip.requestOutputs(lines, consumer: consumer), marks: marks)
    }
}

struct MarkedInputs: GPIOInputRequest {
    let request: SimInputRequest
    let marks: Marks

    var offsets: [GPIOLineOffset] { request.offsets }
    var edgesAreDebounced: Bool { request.edgesAreDebounced }
    var hasPendingEdgeEvents: Bool { request.hasPendingEdgeEvents }
    var pollDescriptor: Int32? { request.pollDescriptor }
    func readValue(at index: Int) throws(GPIOError) -> Bool { try request.readValue(at: index) }
    func readEdgeEvents(into buffer: UnsafeMutableBufferPointer<EdgeEvent>) throws(GPIOError) -> Int {
        let count = try request.readEdgeEvents(into: buffer)
        marks.afterRead(count: count)
        return count
    }
    func release() { request.release() }
}

struct MarkedOutputs: GPIOOutputRequest {
    let request: SimOutputRequest
    let marks: Marks

    var offsets: [GPIOLineOffset] { request.offsets }
    func write(_ value: Bool, at index: Int) throws(GPIOError) {
        marks.beforeWrite()
        try request.write(value, at: index)
    }
    func release() { request.release() }
}

/// The HIL board's lines (boards/hil-gpio-sim.toml) with debounce 0, as the edge-latency
/// benchmark runs the daemon: each edge is taken in the `process(now:)` call that reads it.
let boardText = """
    [board]
    name = "edge-path-probe"
    backend = "sim"
    chip = "turnstile-probe"
    consumer = "turnstiled"

    [inputs.coin]
    line = "COIN"
    active_low = true
    debounce = "0ms"

    [inputs.push]
    line = "PUSH"
    active_low = true
    debounce = "0ms"

    [inputs.service]
    line = "SERVICE"
    active_low = true
    debounce = "0ms"

    [inputs.emergency]
    line = "EMERGENCY"
    active_low = true
    debounce = "0ms"

    [outputs.lock]
    line = "LOCK"

    [outputs.alarm]
    line = "ALARM"

    [outputs.ready]
    line = "READY"

    [outputs.inhibit]
    line = "INHIBIT"

    """

/// Edges measured when the command line names no count.
let defaultEdges = 2_000
/// Cycles run first and not measured: the first calls of anything take the lazy binding of
/// symbols and the runtime's metadata caches, which the daemon pays once, not per edge.
let warmUpCycles = 20
/// The turnstiled's report rings' size (`ControllerRings.reportCapacity`).
let ringCapacity = 4096
/// Between two presses: longer than any pulse, shorter than the relock timeout (a coin's
/// unlock must still hold when the push comes).
let edgeSpacing = Duration.milliseconds(50)
/// How long each press is held: the HIL probe's coin pulse.
let pressWidth = Duration.milliseconds(20)

/// Says what went wrong on standard error and exits 2.
func fail(_ message: String) -> Never {
    let text = "edge-path-probe: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

@main
enum EdgePathProbe {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let spanName = arguments.first, let span = Span(rawValue: spanName) else {
            fail("usage: edge-path-probe read-to-write|read-to-return [EDGES]")
        }
        var edges = defaultEdges
        if let count = arguments.dropFirst().first {
            guard let parsed = Int(count), parsed > 0 else { fail("not a count: \(count)") }
            edges = parsed
        }
        if ccgm_running_on_valgrind() != 0 && ccgm_marks_compiled() == 0 {
            fail("built without valgrind/callgrind.h (Debian's valgrind package): its marks would measure nothing")
        }

        let board: BoardFile
        do { board = try BoardFile.parse(boardText, file: "edge-path-probe's board") } catch { fail("\(error)") }
        let clock = ManualClock()
        let names = ["COIN", "PUSH", "SERVICE", "EMERGENCY", "LOCK", "ALARM", "READY", "INHIBIT"]
        // Active-low inputs idle high, as the HIL harness holds them.
        let simChip = SimChip(name: "gpiochip0", label: "turnstile-probe", lines: names.enumerated().map { SimLine($1, activeLow: $0 < 4) }, clock: clock)
        let marks = Marks(span: span)
        let chip = MarkedChip(chip: simChip, marks: marks)
        let trace = TurnstileController<MarkedChip>.Trace(capacity: ringCapacity)
        let outputLog = TurnstileController<MarkedChip>.OutputLog(capacity: ringCapacity)
        let ledger = TurnstileController<MarkedChip>.Ledger(capacity: ringCapacity)
        let controller: TurnstileController<MarkedChip>
        do {
            controller = try TurnstileController(
                chip: chip, board: board, trace: trace, outputLog: outputLog, ledger: ledger, completionClock: MonotonicClock())
            controller.reportWatermark = ReportWatermark()
        } catch { fail("\(error)") }

        var now = MachineInstant.zero
        do { try controller.start(at: now) } catch { fail("\(error)") }

        /// Runs the world up to `end`, one `process(now:)` per edge or deadline, as the event loop
        /// does; the rings are drained after each call, outside the measured span, as the daemon's
        /// other threads drain them.
        func run(until end: MachineInstant) {
            while true {
                var next = end
                if let edge = simChip.nextEventTime, edge < next { next = edge }
                if let deadline = controller.nextDeadline, deadline < next { next = deadline }
                simChip.advance(to: next)
                do { try controller.process(now: next) } catch { fail("\(error)") }
                marks.afterProcess()
                _ = trace.drain { _ in }
                _ = outputLog.drain { _ in }
                _ = ledger.drain { _ in }
                if next == end { return }
            }
        }

        let coin: GPIOLineOffset, push: GPIOLineOffset, lock: GPIOLineOffset
        do {
            (coin, push, lock) = (try simChip.offset(ofLineNamed: "COIN"), try simChip.offset(ofLineNamed: "PUSH"), try simChip.offset(ofLineNamed: "LOCK"))
        } catch { fail("\(error)") }
        /// A press of `line` that must leave the lock at `locked`; measured when `measured`.
        func press(_ line: GPIOLineOffset, expectingLock locked: Bool, measured: Bool) {
            simChip.schedulePulse(line: line, at: now, width: pressWidth)
            marks.armed = measured
            run(until: now + pressWidth / 2)
            marks.armed = false
            guard simChip.outputValue(of: lock) == locked else { fail("the lock did not follow the \(line == coin ? "coin" : "push")") }
            now = now + edgeSpacing
            run(until: now)
        }

        for cycle in 0..<(warmUpCycles + (edges + 1) / 2) {
            let measured = cycle >= warmUpCycles
            press(coin, expectingLock: false, measured: measured)
            press(push, expectingLock: true, measured: measured)
        }
        print("edge-path-probe: \(marks.spans) edges measured (\(span.rawValue)), \(controller.context.counters.coins) coins, \(controller.context.counters.passages) passages")
    }
}
