import ControllerFSM
import ControllerHost
import ParkingBarrier
import PropertyBased
import Testing

/// The barrier's machine, as the host drives it, against the plain model of docs/parking-barrier.md's table
/// (`ReferenceBarrier`), on random timed scenarios: requests, vehicles on the loop, the beam,
/// faults, repairs, fire alarms, a jammed arm, and waits long enough for every timer. The limit
/// switches are the simulated arm's (`BarrierPlant`'s `Travel`), moved by the motors the machine drives, so
/// their edges are those of a physical arm. After every step the state, every counter, the
/// outputs, the timer's deadline and the invariants must agree. A failure shrinks and is
/// reported with the actions that led to it.
@Suite("Parking barrier: the machine against docs/parking-barrier.md's table, on random timed scenarios")
struct BarrierReferenceModelTests {
    /// One action: milliseconds since the previous one (negative: the same instant) and a kind.
    typealias Op = (gap: Int, kind: Int)

    @Test("machine and model agree on random timed scenarios")
    func agreeOnRandomScenarios() async {
        let ops = zip(Gen.int(in: -3_000...9_000), Gen.int(in: 0...99)).array(of: 1...60)
        await propertyCheck(count: 300, input: Gen.bool, ops) { armUp, ops in
            var run = BarrierRun(armUp: armUp)
            let disagreement = run.play(ops.map { Op($0.0, $0.1) })
            #expect(disagreement == nil, "\(disagreement ?? "")\n--- actions (arm \(armUp ? "up" : "down") at start):\n\(run.log.joined(separator: "\n"))")
        }
    }

    @Test("the model is not vacuous: a scenario that visits every state, and counts every counter, agrees")
    func everyState() {
        // Times in comments are where each line's action happens; the arm takes 3 s each way.
        let ops: [Op] = [
            (0, 0), (4_000, 30), (2_000, 30),  // 0 request, 4 a vehicle on, 6 off: a passage; closed at 10
            (5_000, 0),  // 11 an opening nobody uses: it expires at 34; closed at 37
            (30_000, 0), (24_000, 45), (0, 45),  // 41 open at 44, closing at 64; 65 the beam reverses it
            (30_000, 55), (0, 55), (1_000, 0), (1_000, 62),  // 95 fault, a second ignored, 96 refused, 97 repair
            (30_000, 72), (1_000, 0), (3_000, 72),  // 127 the fire alarm lifts the arm, 128 refused, 131 over: open
            (30_000, 80), (0, 0),  // 161 the arm jams at rest; the request's opening times out: fault
            (10_000, 72), (10_000, 72),  // 171 the alarm cannot lift it either (a fault); 181 back to fault
            (0, 80), (0, 62),  // 181 freed and repaired
        ]
        var run = BarrierRun(armUp: false)
        let disagreement = run.play(ops)
        #expect(disagreement == nil, "\(disagreement ?? "")\n\(run.log.joined(separator: "\n"))")
        #expect(run.statesSeen == Set(ReferenceBarrier.State.allCases.map(\.rawValue)), "\(run.statesSeen)")
        for name in ["requests", "refusedRequests", "passages", "expiredOpenings", "reversals", "faults", "repairs", "ignored"] {
            #expect(run.model.counters[name, default: 0] > 0, "\(name) never counted:\n\(run.log.joined(separator: "\n"))")
        }
    }

    @Test("a model that disagrees is caught: the comparison can fail")
    func disagreementIsCaught() {
        var run = BarrierRun(armUp: false)
        run.model.counters["passages"] = 1
        #expect(run.play([(0, 90)])?.contains("passages 0, model 1") == true)
    }
}

/// The machine, the model and the simulated arm in one virtual timeline.
struct BarrierRun {
    var driver: BarrierDriver
    var model: ReferenceBarrier
    var plant: Travel
    var time: Int64 = 0
    var log: [String] = []
    var statesSeen: Set<String> = []
    private var alarm = false

    init(armUp: Bool) {
        plant = Travel(travelTime: BarrierPlant.wiring.defaultTravelTime, startsAtEnd: armUp)
        driver = BarrierDriver(armDown: plant.isAtRest, armUp: plant.isAtEnd)
        model = ReferenceBarrier(armUp: armUp)
        statesSeen.insert(driver.state.name)
    }

    /// Plays `ops`, then a minute more; the first disagreement, if any.
    mutating func play(_ ops: [BarrierReferenceModelTests.Op]) -> String? {
        if let problem = differences() { return "at the start: \(problem)" }
        for op in ops {
            // A wait long enough for hold_open and the motor timeouts.
            let gap = op.kind >= 86 ? op.gap + 25_000 : op.gap
            if let problem = settle(until: time + Int64(max(gap, 0)) * 1_000_000) { return problem }
            if let problem = perform(op.kind) { return problem }
        }
        return settle(until: time + 60_000_000_000)
    }

    /// One action at the current time.
    private mutating func perform(_ kind: Int) -> String? {
        let action: String
        switch kind {
        case 0..<30: action = send(.request)
        case 30..<45: action = edge(.loop, !driver.context.loop)
        case 45..<55: action = edge(.photocell, !driver.context.photocell)
        case 55..<62: action = send(.fault)
        case 62..<72: action = send(.repair)
        case 72..<80:
            alarm.toggle()
            action = send(alarm ? .emergencyOn : .emergencyOff)
        case 80..<86:
            action = plant.isStuck ? "arm free" : "arm stuck"
            plant.setStuck(!plant.isStuck, at: MachineInstant(nanoseconds: time))
        default: return nil
        }
        log.append("\(Self.seconds(time)) \(action)")
        return sync()
    }

    /// A pulse or a command, to the machine and to the model.
    mutating func send(_ event: BarrierEvent) -> String {
        driver.send(event, at: MachineInstant(nanoseconds: time))
        model.take(ReferenceBarrier.Event.allCases.first { "\($0)" == event.name }!, at: time)
        return event.name
    }

    /// A level's edge, to the machine through the host's path and to the model.
    mutating func edge(_ level: BarrierDriver.Level, _ active: Bool) -> String {
        driver.set(level, active, at: MachineInstant(nanoseconds: time))
        let event: ReferenceBarrier.Event = switch level {
        case .loop: active ? .vehicleIn : .vehicleOut
        case .photocell: active ? .blocked : .unblocked
        case .upLimit: active ? .upReached : .upLeft
        case .downLimit: active ? .downReached : .downLeft
        }
        model.take(event, at: time)
        return "set \(level) \(active ? "on" : "off")"
    }

    /// Everything due by `end` — timer expiries and the arm reaching an end — in time order,
    /// a timer first at one instant.
    mutating func settle(until end: Int64) -> String? {
        while true {
            let deadline = driver.machine.nextDeadline?.nanoseconds
            guard let next = [deadline, plant.nextArrival?.nanoseconds].compactMap({ $0 }).min(), next <= end else { break }
            time = next
            if next == deadline {
                driver.advance(to: MachineInstant(nanoseconds: next))
                model.advance(to: next)
            }
            if let problem = sync() { return problem }
        }
        time = end
        driver.advance(to: MachineInstant(nanoseconds: end))
        model.advance(to: end)
        return differences()
    }

    /// The motors as the machine now drives them move the arm; each limit switch's edge goes
    /// to both, one at a time, until nothing changes.
    mutating func sync() -> String? {
        let now = MachineInstant(nanoseconds: time)
        for _ in 0..<8 {
            statesSeen.insert(driver.state.name)
            if let problem = differences() { return "at \(Self.seconds(time)) s: \(problem)" }
            plant.drive(towardsEnd: driver.outputs.motorUp, towardsRest: driver.outputs.motorDown, at: now)
            if driver.context.upLimit != plant.isAtEnd {
                log.append("\(Self.seconds(time))   (arm) \(edge(.upLimit, plant.isAtEnd))")
            } else if driver.context.downLimit != plant.isAtRest {
                log.append("\(Self.seconds(time))   (arm) \(edge(.downLimit, plant.isAtRest))")
            } else {
                return nil
            }
        }
        return "at \(Self.seconds(time)) s: the arm and the machine did not settle"
    }

    /// What differs between machine and model, or where an invariant fails; `nil` when all holds.
    func differences() -> String? {
        var problems: [String] = []
        if driver.state.name != model.state.rawValue { problems.append("state \(driver.state.name), model \(model.state.rawValue)") }
        for (name, value) in driver.namedCounters.sorted(by: { $0.key < $1.key }) where value != model.counters[name, default: 0] {
            problems.append("\(name) \(value), model \(model.counters[name, default: 0])")
        }
        let wanted = BarrierDriver.Outputs(motorUp: model.motorUp, motorDown: model.motorDown, green: model.green, red: model.red, alarm: model.alarm)
        if driver.outputs != wanted { problems.append("outputs \(driver.outputs); model \(wanted)") }
        let deadline = driver.machine.nextDeadline?.nanoseconds
        if deadline != model.timer {
            problems.append("timer \(deadline.map { Self.seconds($0) } ?? "off"), model \(model.timer.map { Self.seconds($0) } ?? "off")")
        }
        if let violation = BarrierInvariants.violation(of: driver) { problems.append("invariant: \(violation)") }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    static func seconds(_ nanoseconds: Int64) -> String {
        let millis = nanoseconds / 1_000_000
        let fraction = String(millis % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
