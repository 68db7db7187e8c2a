import ControllerTestSupport
import TurnstileTestSupport
import ControllerFSM
import ControllerFSMSim
import PropertyBased
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// The turnstile on the simulated lines against a plain model of docs/turnstile.md's table, written
/// here without the runtime: random *timed* scenarios — same-instant actions, faults, repairs,
/// fire alarms, held pushes, timers overlapping — and before every group of actions the state,
/// credit, every counter and the outputs must agree. A failure shrinks (swift-property-based)
/// and is reported as a scenario, ready for `turnstiled simulate --script`.
@Suite("Reference model: the controller against docs/turnstile.md's table, on random timed scenarios")
struct ReferenceModelPropertyTests {
    @Test("controller and model agree on random timed scenarios")
    func agreeOnRandomScenarios() async {
        // One op: milliseconds since the previous action, a kind, a parameter. A negative gap
        // means the same instant as the previous action: about one action in five.
        let ops = zip(Gen.int(in: -1_500...6_000), Gen.int(in: 0...99), Gen.int(in: 0...3)).array(of: 1...60)
        await propertyCheck(count: PropertyCases.count(150), input: ops) { ops in
            let scenario = ScenarioBuilder(ops: ops).text
            let disagreement: String?
            do {
                disagreement = try Self.compare(scenario)
            } catch {
                disagreement = "the scenario was refused or the run failed: \(error)"
            }
            #expect(disagreement == nil, "\(disagreement ?? "")\n--- scenario (turnstiled simulate --script FILE):\n\(scenario)")
        }
    }

    @Test("the model is not vacuous: a scenario that visits every state agrees")
    func everyState() throws {
        let text = """
            0 coin
            0.5 push
            1 fault
            1 emergency on
            1.5 event emergencyOff
            2 emergency off
            2.5 event emergencyOn
            2.7 emergency on
            2.8 event emergencyOff
            2.9 emergency off
            3 event repair
            9 coin
            9.5 coin
            10 push
            20 push hold 31
            60 end
            """
        #expect(try Self.compare(text) == nil)
    }

    /// Plays `text` on the simulated board beside the model; the first disagreement, if any.
    static func compare(_ text: String) throws -> String? {
        let board = BoardFile.defaultSim
        let scenario = try Scenario<TurnstileApplication>.parse(text, file: "random", vocabulary: TurnstileSimulation.vocabulary(for: board))
        try TurnstileSimulation.check(scenario, against: board)
        let simulation = try TurnstileSimulation(board: board, reporter: SimulationRecorder())
        var model = ReferenceTurnstile()
        let steps = scenario.steps.filter { !$0.action.isExpectation && $0.action != .end }
        if steps.contains(where: { $0.time == .zero && $0.action == .emergency(on: true) }) {
            try simulation.perform(.emergency(on: true), at: .zero)
            model.alarmAtStart()
        }
        try simulation.start()
        var index = 0
        while index < steps.count {
            let time = steps[index].time
            try simulation.advance(before: MachineInstant.zero + time)
            model.advance(to: time.seconds - 1e-9)
            if let difference = model.differs(from: simulation.controller) {
                return "before \(time.secondsText) s: \(difference)"
            }
            while index < steps.count && steps[index].time == time {
                let step = steps[index]
                if !(step.time == .zero && step.action == .emergency(on: true)) {
                    try simulation.perform(step.action, at: MachineInstant.zero + time)
                    model.perform(step.action, at: time.seconds)
                }
                index += 1
            }
        }
        try simulation.advance(through: MachineInstant.zero + scenario.endTime)
        model.advance(to: scenario.endTime.seconds)
        return model.differs(from: simulation.controller).map { "at the end (\(scenario.endTime.secondsText) s): \($0)" }
    }
}

private extension ScenarioAction<TurnstileApplication> {
    var isExpectation: Bool {
        switch self {
        case .expectState, .expectCounter, .expectGauge, .expectOutput: true
        default: false
        }
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// docs/turnstile.md's turnstile, written plainly: a switch per state, timers as times, the input
/// model's delays as constants. Nothing here comes from the runtime or the Turnstile module.
struct ReferenceTurnstile {
    enum State: String { case locked, unlocked, broken, outOfOrder, emergency }
    enum Event { case coin, push, fault, repair, timeout, emergencyOn, emergencyOff }

    // boards/sim.toml's timings and input model.
    static let relock = 5.0, repairPeriod = 5.0, jam = 30.0, alarmPulse = 0.5
    /// A pulse is taken once its bounce (within 3 ms) has settled for the 10 ms debounce period.
    static let pulseDelay = 0.0115
    /// A level has no bounce: taken after the debounce period.
    static let levelDelay = 0.010
    static let pushPulse = 0.150

    var state = State.locked
    var credit = 0
    var remembered = State.locked
    var counters: [String: Int] = [:]
    var timer: Double?
    var alarmPulseEnd: Double?
    var jamDeadline: Double?
    var pushReleaseAt: Double?
    var jammed = false
    /// The fire alarm's two sources: the emergency line (taken after its debounce) and
    /// commands. The alarm is on while either says so; only its change is an event.
    var alarmLine = false
    var alarmCommand = false
    /// Events on their way in from the lines: (time taken, event).
    var pending: [(Double, Event)] = []

    mutating func alarmAtStart() { setAlarm(line: true, at: 0) }

    /// One source of the fire alarm changes; the machine hears only a change of the whole.
    mutating func setAlarm(line: Bool? = nil, command: Bool? = nil, at time: Double) {
        let before = alarmLine || alarmCommand
        if let line { alarmLine = line }
        if let command { alarmCommand = command }
        let after = alarmLine || alarmCommand
        if after != before { dispatch(after ? .emergencyOn : .emergencyOff, at: time) }
    }

    /// A scenario action at `time`: a direct fault now, a line's event a little later.
    mutating func perform(_ action: ScenarioAction<TurnstileApplication>, at time: Double) {
        advance(to: time)
        switch action {
        case .command(.emergencyOn): setAlarm(command: true, at: time)
        case .command(.emergencyOff): setAlarm(command: false, at: time)
        case .command(.repair): dispatch(.repair, at: time)
        case .fault: dispatch(.fault, at: time)
        case .coin: pending.append((time + Self.pulseDelay, .coin))
        case .push:
            pending.append((time + Self.pulseDelay, .push))
            pending.append((time + Self.pushPulse + Self.pulseDelay, .push))  // the release, see take()
        case .pulse(.push, let hold?):
            pending.append((time + Self.pulseDelay, .push))
            pending.append((time + hold.seconds + Self.pulseDelay, .push))
        case .repair: pending.append((time + Self.pulseDelay, .repair))
        case .level(.emergency, let on): pending.append((time + Self.levelDelay, on ? .emergencyOn : .emergencyOff))
        default: break
        }
        pending.sort { $0.0 < $1.0 }
    }

    /// Everything due by `time`, earliest first.
    mutating func advance(to time: Double) {
        while true {
            let candidates: [(Double, Int)] = [
                pending.first.map { ($0.0, 0) }, timer.map { ($0, 1) }, jamDeadline.map { ($0, 2) }, alarmPulseEnd.map { ($0, 3) },
            ].compactMap { $0 }
            guard let (due, which) = candidates.min(by: { $0.0 < $1.0 }), due <= time else { return }
            switch which {
            case 0: take(pending.removeFirst(), at: due)
            case 1: timer = nil; dispatch(.timeout, at: due)
            case 2: jamDeadline = nil; jammed = true; dispatch(.fault, at: due)
            default: alarmPulseEnd = nil
            }
        }
    }

    private mutating func take(_ item: (Double, Event), at time: Double) {
        // The push line's second event is its release: it ends a jam instead of passing.
        if item.1 == .push, pushReleaseAt != nil {
            pushReleaseAt = nil
            jamDeadline = nil
            jammed = false
            return
        }
        if item.1 == .push {
            pushReleaseAt = time
            jamDeadline = time + Self.jam
        }
        if item.1 == .emergencyOn || item.1 == .emergencyOff {
            setAlarm(line: item.1 == .emergencyOn, at: time)
            return
        }
        dispatch(item.1, at: time)
    }

    mutating func dispatch(_ event: Event, at time: Double) {
        var next: State? = nil
        var taken = true
        switch (state, event) {
        case (.locked, .coin): count("coins"); credit = 1; next = .unlocked
        case (.locked, .push): count("forcedPushes"); alarmPulseEnd = time + Self.alarmPulse
        case (.unlocked, .coin): count("coins"); credit += 1; timer = time + Self.relock
        case (.unlocked, .push) where credit > 1: count("passages"); credit -= 1; timer = time + Self.relock
        case (.unlocked, .push): count("passages"); credit = 0; next = .locked
        case (.unlocked, .timeout): expire(); next = .locked
        case (.locked, .fault), (.unlocked, .fault): count("faults"); expire(); next = .broken
        case (.broken, .coin), (.outOfOrder, .coin), (.emergency, .coin): count("coins"); count("coinsOutOfService")
        case (.locked, .repair), (.unlocked, .repair), (.broken, .repair): count("repairs"); expire(); next = .outOfOrder
        case (.outOfOrder, .timeout): next = .locked
        case (.emergency, .push): count("freePassages")
        case (.emergency, .emergencyOff): next = remembered == .locked || remembered == .unlocked ? .locked : .broken
        case (_, .emergencyOn) where state != .emergency: expire(); remembered = state; next = .emergency
        default: taken = false
        }
        if !taken { count("ignored") }
        if let next {
            // Exit: a state's timer ends with it. Entry: unlocked and outOfOrder start theirs.
            timer = nil
            state = next
            if next == .unlocked { timer = time + Self.relock }
            if next == .outOfOrder { timer = time + Self.repairPeriod }
        }
        // Back in service with the arm still jammed: that is a fault again.
        if jammed && (state == .locked || state == .unlocked) {
            dispatch(.fault, at: time)
        }
    }

    private mutating func expire() {
        counters["expiredCredits", default: 0] += credit
        credit = 0
    }

    private mutating func count(_ name: String) { counters[name, default: 0] += 1 }

    /// What differs from the controller, or nil.
    func differs(from controller: TurnstileController<SimChip>) -> String? {
        var problems: [String] = []
        if controller.state.name != state.rawValue { problems.append("state \(controller.state.name), model \(state.rawValue)") }
        if controller.credit != credit { problems.append("credit \(controller.credit), model \(credit)") }
        for (name, value) in controller.counters.all where value != counters[name, default: 0] {
            problems.append("\(name) \(value), model \(counters[name, default: 0])")
        }
        let inService = state == .locked || state == .unlocked
        let wanted: [(RoleName, Bool)] = [
            (.lock, !(state == .unlocked || state == .emergency)), (.ready, inService), (.inhibit, !inService),
            (.alarm, state == .broken || alarmPulseEnd != nil),
        ]
        for (role, level) in wanted where controller.output(role) != level {
            problems.append("output \(role.rawValue) \(controller.output(role) == true ? 1 : 0), model \(level ? 1 : 0)")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}

/// Random ops as a valid scenario: pulses on one line never overlap (the scenario check would
/// refuse them), the fire alarm toggles, and no line's event lands within a few milliseconds
/// of another event, a timer, a jam or the end of an alarm pulse, where the exact bounce decides
/// the order — an action that would is moved 50 ms later. Same-instant actions stay together
/// otherwise: a direct fault and a line's edge at one instant have one right order.
struct ScenarioBuilder {
    var lines: [String] = []
    var text: String { lines.joined(separator: "\n") + "\n" }

    init(ops: [(Int, Int, Int)]) {
        var model = ReferenceTurnstile()
        var time = 0.0
        var freeAt: [String: Double] = [:]
        var alarmOn = false
        // Margins: a line is busy for its pulse, bounce and debounce, plus a little.
        let settle = 0.020
        // A pulse is taken 10 to 13 ms after it starts (where its bounce ends decides), and so
        // are the timers it starts: two events closer than this may come in either order.
        let ambiguity = 0.004
        for (gap, kind, parameter) in ops {
            time += Double(max(gap, 0)) / 1000
            let action: String
            let line: String?
            var busy = 0.0
            switch kind {
            case 0..<35: (action, line, busy) = ("coin", "coin", 0.050)
            case 35..<65: (action, line, busy) = ("push", "push", ReferenceTurnstile.pushPulse)
            case 65..<75:
                let hold = [1.0, 10.0, 31.0, 45.0][parameter]
                (action, line, busy) = ("push hold \(Int(hold))", "push", hold)
            case 75..<83: (action, line) = ("repair", "service"); busy = 0.100
            case 83..<89: (action, line) = (alarmOn ? "emergency off" : "emergency on", "emergency")
            // Commands beside the line: an alarm declared, withdrawn (held by the line or not),
            // declared twice; a repair by command.
            case 89..<94: (action, line) = (parameter < 2 ? "event emergencyOn" : "event emergencyOff", nil)
            case 94..<96: (action, line) = ("event repair", nil)
            default: (action, line) = ("fault", nil)
            }
            if let line {
                time = max(time, freeAt[line] ?? 0)
                freeAt[line] = time + busy + settle
            }
            // Keep every event this action causes clear of the model's own deadlines.
            var attempts = 0
            // The action's own time too: the states are compared just before it.
            while attempts < 100, Self.tooClose(model, eventsAt: [time] + Self.eventTimes(of: action, at: time), within: ambiguity) {
                time += 0.05
                attempts += 1
            }
            if let line { freeAt[line] = time + busy + settle }
            if action.hasPrefix("emergency ") { alarmOn.toggle() }
            let scenarioAction = Self.action(action)
            model.perform(scenarioAction, at: time)
            lines.append("\(Self.format(time)) \(action)")
        }
        lines.append("\(Self.format(time + 40)) end")
    }

    static func action(_ text: String) -> ScenarioAction<TurnstileApplication> {
        let words = text.split(separator: " ")
        switch words[0] {
        case "coin": return .coin
        case "push": return words.count == 3 ? .pushHold(.seconds(Int(words[2])!)) : .push
        case "repair": return .repair
        case "emergency": return .emergency(on: words[1] == "on")
        case "event": return .command(TurnstileEvent.directCommands.first { $0.name == words[1] }!)
        default: return .fault
        }
    }

    static func eventTimes(of action: String, at time: Double) -> [Double] {
        switch action.split(separator: " ").first {
        case "fault", "event": [time]
        case "emergency": [time + ReferenceTurnstile.levelDelay]
        case "push":
            action == "push" ? [time + 0.0115, time + ReferenceTurnstile.pushPulse + 0.0115]
                : [time + 0.0115, time + Double(action.split(separator: " ")[2])! + 0.0115]
        default: [time + 0.0115]
        }
    }

    /// Whether any of `times` falls near a deadline the model has, or will have by then.
    static func tooClose(_ model: ReferenceTurnstile, eventsAt times: [Double], within margin: Double) -> Bool {
        var probe = model
        for time in times.sorted() {
            probe.advance(to: time - margin)
            let deadlines = [probe.timer, probe.jamDeadline, probe.alarmPulseEnd].compactMap { $0 } + probe.pending.map(\.0)
            if deadlines.contains(where: { abs($0 - time) < margin }) { return true }
        }
        return false
    }

    static func format(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
