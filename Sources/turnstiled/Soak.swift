import ArgumentParser
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Turnstile
import ControllerSimulation

struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive the simulated turnstile with random inputs for a long time and watch its memory.",
        discussion: """
            Random coins, pushes, repairs, faults and fire alarms go through the simulated lines \
            (with contact bounce) in virtual time. Prints resident memory as the events go by: \
            it must stay flat, since nothing on the event path allocates. Exits 1 if memory grew \
            by more than 256 KiB after the first tenth of the run, or money went missing.
            """)

    @Option(name: .long, help: "How many events to dispatch, between \(Soak.minEvents) and \(Soak.maxEvents).")
    var events = 10_000_000

    @Option(name: .long, help: "Seeds the inputs and the contact bounce (0 to \(UInt64.max)).")
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String?

    /// A billion events: about half an hour at half a million a second, and about eight years
    /// of virtual time, inside the scenario time limit (TimeLimits.scenarioTime).
    static let maxEvents = 1_000_000_000
    /// Fewer events than this leave no first tenth to measure memory growth after.
    static let minEvents = 10
    /// Inputs in a row that dispatch nothing before soak gives up (a healthy run dispatches on
    /// almost every one).
    static let maxIdleActions = 10_000

    func validate() throws {
        guard (Self.minEvents...Self.maxEvents).contains(events) else {
            throw ValidationError("--events must be between \(Self.minEvents) and \(Self.maxEvents), got \(events)")
        }
    }

    func run() throws {
        let boardFile = try loadSimulatedBoard(board)
        let simulation = try TurnstileSimulation(board: boardFile, seed: seed, reporter: QuietReporter())
        var random = SplitMix64(seed: seed ^ 0x50AC_50AC_50AC_50AC)
        var time = MachineInstant.zero
        let wallStart = MonotonicClock().now()
        try simulation.start()

        // events / 10 first: events * k could overflow for a large --events.
        let checkpoints = (1...10).map { $0 == 10 ? events : events / 10 * $0 }
        var nextCheckpoint = 0
        var baselineKiB = 0
        var lastDispatched = 0
        var idleActions = 0
        print("   events   virtual time   wall time    resident")
        while nextCheckpoint < checkpoints.count {
            time = time + .milliseconds(Int64(40 + random.next(below: 400)))
            try simulation.perform(randomAction(&random, state: simulation.controller.state, board: boardFile), at: time)
            try simulation.advance(through: time)
            let dispatched = simulation.controller.statistics.dispatched
            // Inputs the controller never takes would keep this loop going for ever.
            idleActions = dispatched == lastDispatched ? idleActions + 1 : 0
            lastDispatched = dispatched
            if idleActions == Self.maxIdleActions {
                Terminal.error("\(Self.maxIdleActions) inputs in a row were not taken by the controller; check the board's debounce against its [sim] pulses")
                throw ExitStatus.expectationFailed
            }
            if dispatched >= checkpoints[nextCheckpoint] {
                let resident = residentKiB()
                if nextCheckpoint == 0 { baselineKiB = resident }
                let wall = MonotonicClock().now().duration(since: wallStart)
                print("\(pad(dispatched, 9))  \(pad(Int(time.seconds), 10)) s  \(pad(Int(wall.nanosecondCount / 1_000_000), 8)) ms  \(pad(resident, 7)) KiB")
                nextCheckpoint += 1
            }
        }
        let wall = MonotonicClock().now().duration(since: wallStart)
        let dispatched = simulation.controller.statistics.dispatched
        let counters = simulation.controller.counters
        let credit = simulation.controller.credit
        let growth = residentKiB() - baselineKiB
        let balanced = counters.coins == counters.passages + counters.expiredCredits + counters.coinsOutOfService + credit
        print("""
            \(dispatched) events in \(wall.nanosecondCount / 1_000_000) ms of wall time \
            (\(Int(Double(dispatched) / (Double(wall.nanosecondCount) / 1e9))) events/s, simulated lines and debouncing included)
            resident memory grew \(growth) KiB after the first \(checkpoints[0]) events
            money: \(counters.coins) coins = \(counters.passages) passages + \(counters.expiredCredits) expired + \
            \(counters.coinsOutOfService) out of service + \(credit) credit \(balanced ? "(balanced)" : "(NOT BALANCED)")
            """)
        if growth > 256 || !balanced { throw ExitStatus.expectationFailed }
    }

    /// Mostly coins and passages; a broken turnstile gets a service call; now and then a fault
    /// or a fire alarm — only on the inputs the board wires (service and emergency are optional).
    private func randomAction(_ random: inout SplitMix64, state: TurnstileState, board: BoardFile) -> ScenarioAction<TurnstileApplication> {
        let canRepair = board.inputs[.service] != nil
        let hasAlarm = board.inputs[.emergency] != nil
        switch state {
        case .emergency: return random.next(below: 4) == 0 ? .emergency(on: false) : .push
        case .broken where canRepair: return random.next(below: 5) == 0 ? .repair : .coin
        case .broken: return .coin
        default: break
        }
        switch random.next(below: 100) {
        case 0..<48: return .coin
        case 48..<97: return .push
        case 97: return .fault
        default: return hasAlarm ? .emergency(on: true) : .coin
        }
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

/// Resident set size from /proc/self/statm ("size resident shared …", in pages), in KiB; 0
/// when it cannot be read. Read as the loaders read their files (`TextFile`), so through their
/// system call layer: once per checkpoint, never on the event path.
func residentKiB() -> Int {
    guard let statm = try? TextFile.contents(path: "/proc/self/statm", limit: 4096) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let resident = Int(fields[1]) else { return 0 }
    return resident * Syscalls.pageSize / 1024
}

/// Reports nothing: soak runs only count.
final class QuietReporter: SimulationReporter {
    func output(_ name: RoleName, value: Bool, at time: MachineInstant) {}
    func dispatched(_ record: DispatchRecord<TurnstileState, TurnstileEvent>) {}
    func expectationFailed(_ failure: ExpectationFailure) {}
    func finished(_ summary: SimulationSummary<TurnstileApplication>) {}
}
