import ControllerRuntime
import ArgumentParser
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation

package struct Soak<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "soak",
            abstract: "Drive the simulated \(App.name) with random inputs for a long time and watch its memory.",
            discussion: """
                Random pulses, levels, direct commands and alarms go through the simulated lines \
                (with contact bounce) in virtual time. Prints resident memory as the events go by: \
                it must stay flat, since nothing on the event path allocates. Exits 1 if memory grew \
                by more than \(Self.maxGrowthKiB) KiB after the first tenth of the run, an invariant \
                failed after a step, or a balance (\(App.runBalances.map(\.name).joined(separator: ", "))) \
                did not hold at the end.
                """)
    }

    package init() {}

    @Option(name: .long, help: "How many events to dispatch, between \(Self.minEvents) and \(Self.maxEvents).")
    var events = 10_000_000

    @Option(name: .long, help: "Seeds the inputs and the contact bounce (0 to \(UInt64.max)).")
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String?

    /// A billion events: about half an hour at half a million a second, and about eight years
    /// of virtual time, inside the scenario time limit (TimeLimits.scenarioTime).
    static var maxEvents: Int { 1_000_000_000 }
    /// Fewer events than this leave no first tenth to measure memory growth after.
    static var minEvents: Int { 10 }
    /// Inputs in a row that dispatch nothing before soak gives up (a healthy run dispatches on
    /// almost every one).
    static var maxIdleActions: Int { 10_000 }
    /// Resident memory may grow this much after the first tenth (allocator and page noise).
    static var maxGrowthKiB: Int { 256 }

    package func validate() throws {
        guard (Self.minEvents...Self.maxEvents).contains(events) else {
            throw ValidationError("--events must be between \(Self.minEvents) and \(Self.maxEvents), got \(events)")
        }
    }

    package func run() throws {
        let boardFile = try loadSimulatedBoard(App.self, board)
        let simulation = try Simulation<App>(board: boardFile, seed: seed, reporter: QuietReporter<App>())
        var random = SplitMix64(seed: seed ^ 0x50AC_50AC_50AC_50AC)
        var driver = SoakDriver<App>(board: boardFile)
        var failedInvariant: String?
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
            try simulation.perform(driver.randomAction(&random), at: time)
            try simulation.advance(through: time)
            if failedInvariant == nil, let broken = driver.brokenInvariant(simulation.controller) {
                failedInvariant = "at \(time.seconds) s, in \(simulation.controller.state.name): \(broken)"
                Terminal.error("invariant failed \(failedInvariant!)")
            }
            let dispatched = simulation.controller.statistics.dispatched
            // Inputs the controller never takes would keep this loop going for ever.
            idleActions = dispatched == lastDispatched ? idleActions + 1 : 0
            lastDispatched = dispatched
            if idleActions == Self.maxIdleActions {
                Terminal.error("\(Self.maxIdleActions) inputs in a row were not taken by the controller; check the board's debounce against its [sim] pulses")
                throw ControllerExit.expectationFailed
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
        let growth = residentKiB() - baselineKiB
        let summary = SimulationSummary<App>(
            state: simulation.controller.state, gauges: simulation.controller.gaugeValues,
            counters: simulation.controller.counterValues, endTime: time.duration(since: .zero), failedExpectations: 0)
        let value = summary.value(named:)
        var balanced = true
        print("""
            \(dispatched) events in \(wall.nanosecondCount / 1_000_000) ms of wall time \
            (\(Int(Double(dispatched) / (Double(wall.nanosecondCount) / 1e9))) events/s, simulated lines and debouncing included)
            resident memory grew \(growth) KiB after the first \(checkpoints[0]) events
            """)
        for balance in App.runBalances {
            let holds = balance.holds(value)
            balanced = balanced && holds
            print("\(balance.name): \(balance.valuesFirst(value)) \(holds ? "(balanced)" : "(NOT BALANCED)")")
        }
        if growth > Self.maxGrowthKiB || !balanced || failedInvariant != nil { throw ControllerExit.expectationFailed }
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

/// Resident set size from /proc/self/statm ("size resident shared …", in pages), in KiB; 0
/// when it cannot be read. Read as the loaders read their files (`TextFile`), so through their
/// system call layer: once per checkpoint, never on the event path.
package func residentKiB() -> Int {
    guard let statm = try? TextFile.contents(path: "/proc/self/statm", limit: 4096) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let resident = Int(fields[1]) else { return 0 }
    return resident * Syscalls.pageSize / 1024
}

