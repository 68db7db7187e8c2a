import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Testing
import Turnstile

/// The relay changes first: within a step, the controller writes the outputs before it counts
/// the step's state changes and books its ledger entry, so nothing the path only records for
/// others stands between the edge and the write.
@Suite("Controller: outputs before bookkeeping")
struct OutputBeforeBookkeepingTests {
    /// What the controller had booked when each output write reached the chip.
    final class WriteObserver {
        struct Write {
            let slot: Int
            let level: Bool
            let ledgerEntries: Int
            let emergencyOn: Int?
        }

        /// Weak: the controller holds the chip's requests, which hold this.
        weak var controller: TurnstileController<ObservedChip>?
        let ledger: TurnstileController<ObservedChip>.Ledger
        var writes: [Write] = []

        init(ledger: TurnstileController<ObservedChip>.Ledger) { self.ledger = ledger }

        func willWrite(_ level: Bool, at slot: Int) {
            writes.append(Write(slot: slot, level: level, ledgerEntries: ledger.recordedCount,
                                emergencyOn: controller?.count(named: "emergencyOn")))
        }
    }

    /// The simulated chip, with every output write shown to the observer first.
    struct ObservedChip: GPIOChip {
        let chip: SimChip
        let observer: WriteObserver

        var info: GPIOChipInfo { chip.info }
        func offset(ofLineNamed name: String) throws(GPIOError) -> GPIOLineOffset { try chip.offset(ofLineNamed: name) }
        func lineInfo(at offset: GPIOLineOffset) throws(GPIOError) -> GPIOLineInfo { try chip.lineInfo(at: offset) }
        func requestInputs(_ lines: [InputLineSettings], consumer: String) throws(GPIOError) -> SimInputRequest {
            try chip.requestInputs(lines, consumer: consumer)
        }
        func requestOutputs(_ lines: [OutputLineSettings], consumer: String) throws(GPIOError) -> ObservedOutputs {
            ObservedOutputs(request: try chip.requestOutputs(lines, consumer: consumer), observer: observer)
        }
    }

    struct ObservedOutputs: GPIOOutputRequest {
        let request: SimOutputRequest
        let observer: WriteObserver

        var offsets: [GPIOLineOffset] { request.offsets }
        func write(_ value: Bool, at index: Int) throws(GPIOError) {
            observer.willWrite(value, at: index)
            try request.write(value, at: index)
        }
        func release() { request.release() }
    }

    /// boards/sim.toml's wiring: the inputs on lines 0-3, the lock on 4 (request slot 0).
    static let lines: [SimLine] = ["COIN", "PUSH", "SERVICE", "EMERGENCY", nil, nil, nil, nil].map { SimLine($0, activeLow: true) }
    static let emergencyLine = GPIOLineOffset(3)
    static let lockSlot = 0

    @Test("an emergency's edge releases the lock before its state count and ledger entry are made")
    func emergencyWritesFirst() throws {
        let chip = SimChip(label: "turnstile-sim", lines: Self.lines, clock: ManualClock())
        let ledger = TurnstileController<ObservedChip>.Ledger(capacity: 64)
        let observer = WriteObserver(ledger: ledger)
        let controller = try TurnstileController(chip: ObservedChip(chip: chip, observer: observer), board: .defaultSim, ledger: ledger)
        observer.controller = controller
        try controller.start(at: .zero)
        let entriesBefore = ledger.recordedCount
        let writesBefore = observer.writes.count

        chip.scheduleLevel(line: Self.emergencyLine, at: .zero + .milliseconds(100), active: true)
        chip.advance(to: .zero + .milliseconds(200))
        try controller.process(now: .zero + .milliseconds(200))

        #expect(controller.state == .emergency)
        let step = observer.writes.dropFirst(writesBefore)
        let release = try #require(step.first { $0.slot == Self.lockSlot }, "the emergency frees the way: the lock is written")
        #expect(release.level == false)
        #expect(release.emergencyOn == 0, "the step into the emergency is counted after the write")
        #expect(release.ledgerEntries == entriesBefore, "the step's ledger entry is booked after the write")
        #expect(step.allSatisfy { $0.emergencyOn == 0 && $0.ledgerEntries == entriesBefore }, "every write of the step comes first")
        #expect(controller.count(named: "emergencyOn") == 1)
        #expect(ledger.recordedCount == entriesBefore + 1)
    }
}
