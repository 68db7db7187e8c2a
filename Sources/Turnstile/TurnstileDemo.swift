import ControllerHost

extension TurnstileApplication {
    /// The scenario `turnstiled simulate` plays without `--script`, written for `board`: every
    /// state and every input the board wires, paced by its timings and pulse widths, with checks
    /// that say it went right. On `boards/sim.toml` it visits all five states in 56 s.
    ///
    /// It is built rather than fixed so that any valid board gets a demo that holds: one without
    /// a service input never repairs (so the jam comes last), one without an emergency input has
    /// no fire alarm, one without an alarm output checks no alarm.
    public static func demoScenario(for board: BoardFile) -> String {
        DemoBuilder(board: board).text
    }
}

/// Writes the demo one action at a time, keeping the clock and the counters it expects.
private struct DemoBuilder {
    let board: BoardFile
    private(set) var lines = ["# The built-in demo: every state and every input the board wires, checked as it goes."]
    private var time = 0.0
    private var coins = 0
    private var outOfService = 0
    private var freePassages = 0

    init(board: BoardFile) {
        self.board = board
        let timings = board.settings
        let relock = timings.relockTimeout.seconds, repair = timings.repairPeriod.seconds
        let jam = timings.jamTimeout.seconds, alarmPulse = timings.alarmPulse.seconds
        let hasService = board.inputs["service"] != nil, hasAlarm = board.inputs["emergency"] != nil
        let sounds = board.outputs["alarm"] != nil

        add("coin", "locked -> unlocked, credit 1"); coins += 1
        wait(step); add("coin", "credit 2; the relock timer restarts"); coins += 1
        wait(step); add("push", "a passage, credit 1")
        wait(step); add("push", "the last credit: locked again")
        expect(after: settle, "state locked", "counter passages 2")
        wait(step); add("push", "a forced push: the alarm sounds")
        if sounds && alarmPulse > 2 * settle {
            expect(after: settle, "output alarm 1")
            expect(after: alarmPulse + settle, "output alarm 0")
        }
        wait(max(alarmPulse, step) + step); add("coin", "unlocked, and nobody passes..."); coins += 1
        expect(after: relock + step, "state locked", "counter expiredCredits 1")
        wait(relock + 2 * step)
        if hasService {
            breakAndRepair(sounds: sounds, repair: repair)
        }
        if hasAlarm {
            add("coin", "unlocked with credit 1"); coins += 1
            wait(step); add("emergency on", "fire alarm: arm released, the credit expires")
            expect(after: settle, "output lock 0")
            wait(step); add("push", "a free passage"); freePassages += 1
            wait(step); add("emergency off", "back to locked")
            wait(step)
        }
        add("push hold \(format(jam + 1))", "the arm held: after jam_timeout it is a jam, a fault")
        expect(after: jam + 1, "state broken")
        wait(jam + 2)
        if hasService {
            add("repair"); expect(after: repair + step, "state locked")
            wait(repair + 2 * step)
        } else {
            add("coin", "taken while broken: counted out of service"); coins += 1; outOfService += 1
            wait(step)
        }
        expect(after: 0, "counter coins \(coins)", "counter coinsOutOfService \(outOfService)",
               "counter freePassages \(freePassages)")
        lines.append("\(format(time))    end")
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// Room between actions: longer than any pulse plus its debounce, so pulses never overlap.
    private var step: Double {
        let pulses = [board.sim.pulse("coin")!, board.sim.pulse("push")!, board.sim.pulse("service")!].map(\.seconds).max() ?? 0
        return max(0.5, pulses + settle + 0.2)
    }

    /// How long after its pulse starts an input is surely taken: bounce, then debounce, and a margin.
    private var settle: Double {
        let debounce = board.inputs.values.map(\.debounce.seconds).max() ?? 0
        return board.sim.bounceWindow.seconds + debounce + 0.1
    }

    private mutating func breakAndRepair(sounds: Bool, repair: Double) {
        add("fault", "the mechanism reports a failure: broken, alarm on")
        if sounds { expect(after: settle, "output alarm 1") }
        wait(step); add("coin", "taken while broken: counted out of service"); coins += 1; outOfService += 1
        wait(step); add("repair", "a service pulse: out of order for the repair period")
        expect(after: repair - 0.1, "state outOfOrder")
        expect(after: repair + settle + 0.1, "state locked")
        wait(repair + 2 * step)
    }

    private mutating func wait(_ seconds: Double) { time += seconds }

    private mutating func add(_ action: String, _ comment: String? = nil) {
        let line = "\(format(time))    \(action)"
        // Comments start in one column, or one space after a longer line.
        let column = 36
        lines.append(comment.map { line + String(repeating: " ", count: max(1, column - line.count)) + "# \($0)" } ?? line)
    }

    private mutating func expect(after delay: Double, _ checks: String...) {
        for check in checks { lines.append("\(format(time + delay))    expect \(check)") }
    }

    /// Seconds with up to three decimals, trailing zeros dropped.
    private func format(_ seconds: Double) -> String {
        Duration.milliseconds(Int64((seconds * 1000).rounded())).secondsText
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (for arithmetic on demo timings).
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
