import ControllerFSM
import ControllerHost
import ControllerSimulation

#if canImport(Glibc)
import Glibc
#endif

/// `--json`: one object per line on standard output, as docs/reference/commands.md's `simulate` gives,
/// the same shape for every application (the summary carries the state, every gauge and every
/// counter).
package final class JSONReporter<App: ControllerApplication>: SimulationReporter {
    package init() {}

    package func output(_ name: RoleName, value: Bool, at time: MachineInstant) {
        print(JSONLine(type: "output").seconds("t", since(time)).string("line", name.rawValue).level("value", value).text)
    }

    package func dispatched(_ record: DispatchRecord<App.State, App.Event>) {
        if record.outcome == .ignored {
            print(JSONLine(type: "ignored").seconds("t", since(record.time)).string("state", record.from.name).string("event", record.event.name).text)
        } else {
            // "row": where the row taken was written, when a superstate's (absent for a flat machine);
            // "internal": a row that stays in its state, exiting and entering nothing.
            var line = JSONLine(type: "transition").seconds("t", since(record.time))
                .string("from", record.from.name).string("event", record.event.name).string("to", record.to.name)
            if record.outcome == .handledInternally { line = line.bool("internal", true) }
            if let row = App.table.rowOf(record) { line = line.string("row", row.name) }
            print(line.text)
        }
    }

    package func expectationFailed(_ failure: ExpectationFailure) {
        Terminal.writeError("\(failure)".shownLine + "\n")  // a scenario's words: shown, never raw
    }

    package func outputOverridden(_ role: RoleName, reason: String, at time: MachineInstant) {
        print(JSONLine(type: "override").seconds("t", since(time)).string("line", role.rawValue).string("reason", reason).text)
    }

    package func invariantBroken(_ name: String, in state: String, at time: MachineInstant) {
        print(JSONLine(type: "invariant").seconds("t", since(time)).string("state", state).string("broken", name).text)
    }

    package func finished(_ summary: SimulationSummary<App>) {
        var line = JSONLine(type: "summary").string("state", summary.state.name)
        // With parallel regions, every region's state as well.
        if summary.activeStates.count > 1 { line = line.string("states", summary.statesText) }
        for gauge in summary.namedGauges { line = line.int(gauge.name, gauge.value) }
        let counters = summary.namedCounters.reduce(JSONLine()) { $0.int($1.name, $1.value) }
        line = line.object("counters", counters).int("outputOverrides", summary.outputOverrides)
            .int("brokenInvariants", summary.brokenInvariants).int("unsettledSteps", summary.unsettledSteps)
        print(line.text)
    }

    private func since(_ time: MachineInstant) -> Duration { time.duration(since: .zero) }
}

/// The readable trace: one line per transition, ignored event and output change, then a summary.
package final class TextReporter<App: ControllerApplication>: SimulationReporter {
    /// Counters per line of the summary: a line of a terminal's width.
    static var countersPerLine: Int { 5 }

    private let style: Style
    /// For what goes to standard error, which may be redirected when standard output is not.
    private let errorStyle = Style(enabled: Terminal.wantsColor(on: STDERR_FILENO))
    /// Columns for an output's name and an event's name: the longest and a space.
    private let outputWidth = (App.outputs.map(\.role.rawValue.count).max() ?? 0) + 1
    private let eventWidth = (App.Event.allCases.map(\.name.count).max() ?? 0) + 1

    package init(colors: Bool, command: String = "simulate", header: String) {
        style = Style(enabled: colors)
        print(style.bold("\(App.daemonName) \(command)") + style.dim(" — \(header)"))
    }

    package func output(_ name: RoleName, value: Bool, at time: MachineInstant) {
        let meaning = App.outputIndex(named: name).flatMap { App.outputs[$0].meaning }.map { "  (\($0.callsLevel(value)))" } ?? ""
        print("\(stamp(time))  " + style.dim("\(pad(name.rawValue, outputWidth)) = \(value ? 1 : 0)\(meaning)"))
    }

    package func dispatched(_ record: DispatchRecord<App.State, App.Event>) {
        print(line(record))
    }

    /// One dispatch as the trace shows it. An edge of a level the host keeps in the context
    /// (`keeping`) is handled in every state and never counted as ignored: it is shown as the
    /// level change it is, not as "ignored".
    package func line(_ record: DispatchRecord<App.State, App.Event>) -> String {
        let event = pad(record.event.name, eventWidth)
        switch record.outcome {
        case .transitioned:
            let row = App.table.rowOf(record).map { " (row of \($0.name))" } ?? ""
            return "\(stamp(record.time))  \(style.bold(event))" + style.cyan("\(record.from.name) → \(record.to.name)") + row
        case .handledInternally:
            let row = App.table.rowOf(record).map { ", row of \($0.name)" } ?? ""
            return "\(stamp(record.time))  \(style.bold(event))" + "\(record.from.name) (internal\(row))"
        case .ignored:
            if let (role, active) = App.keptLevel(sentBy: record.event) {
                return "\(stamp(record.time))  \(event)" + style.dim("\(role.rawValue) \(active ? "active" : "inactive") in \(record.from.name) (level kept)")
            }
            return "\(stamp(record.time))  \(event)" + style.yellow("ignored in \(record.from.name)")
        }
    }

    package func expectationFailed(_ failure: ExpectationFailure) {
        Terminal.writeError(errorStyle.red("expect failed: ") + "\(failure)".shownLine + "\n")
    }

    package func outputOverridden(_ role: RoleName, reason: String, at time: MachineInstant) {
        print("\(stamp(time))  " + style.red("\(pad(role.rawValue, outputWidth)) not driven as the machine asks: \(reason)"))
    }

    package func invariantBroken(_ name: String, in state: String, at time: MachineInstant) {
        print("\(stamp(time))  " + style.red("invariant broken in \(state): \(name)"))
    }

    package func finished(_ summary: SimulationSummary<App>) {
        print("")
        let gauges = summary.namedGauges.map { ", \($0.name) \($0.value)" }.joined()
        print(style.bold("after \(summary.endTime.secondsText) s: ") + "state \(style.cyan(summary.statesText))\(gauges)")
        let counters = summary.namedCounters.map { "\($0.name) \($0.value)" }
        for start in stride(from: 0, to: counters.count, by: Self.countersPerLine) {
            print("  " + counters[start..<Swift.min(start + Self.countersPerLine, counters.count)].joined(separator: ", "))
        }
        let value = summary.value(named:)
        for balance in App.runBalances {
            print("  \(balance.name): \(balance.valuesFirst(value)) " + (balance.holds(value) ? style.green("✓") : style.red("✗")))
        }
        if summary.outputOverrides > 0 {
            print(style.red("\(summary.outputOverrides) time(s) an output was not driven as the machine asked"))
        }
        if summary.brokenInvariants > 0 {
            print(style.red("\(summary.brokenInvariants) time(s) an invariant did not hold"))
        }
        if summary.unsettledSteps > 0, let report = summary.unsettledReport {
            print(style.red("\(summary.unsettledSteps) step(s) did not settle; the last: \(report)"))
        }
        if summary.failedExpectations > 0 {
            print(style.red("\(summary.failedExpectations) expect(s) failed"))
        } else if summary.checkedExpectations > 0 {
            print(style.green("every expect held"))
        }
    }

    private func stamp(_ time: MachineInstant) -> String {
        let millis = time.nanoseconds / 1_000_000
        let text = "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000) s"
        return style.dim(String(repeating: " ", count: Swift.max(0, 9 - text.count)) + text)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: Swift.max(1, width - text.count))
    }
}

/// Reports nothing: soak runs only count.
package final class QuietReporter<App: ControllerApplication>: SimulationReporter {
    package init() {}
    package func output(_ name: RoleName, value: Bool, at time: MachineInstant) {}
    package func dispatched(_ record: DispatchRecord<App.State, App.Event>) {}
    package func expectationFailed(_ failure: ExpectationFailure) {}
    package func finished(_ summary: SimulationSummary<App>) {}
}

extension SimulationSummary {
    /// A counter's or a gauge's value by name, 0 for a name it does not hold.
    package func value(named name: String) -> Int {
        if let counter = namedCounters.first(where: { $0.name == name }) { return counter.value }
        return namedGauges.first(where: { $0.name == name })?.value ?? 0
    }
}

extension ControllerApplication {
    /// The level input whose edge sends `event` and whose level the host keeps in the context
    /// (`.level(..., keeping:)`), and whether the edge is its active one: such an event is
    /// handled in every state, even where the table does not answer it.
    static func keptLevel(sentBy event: Event) -> (RoleName, Bool)? {
        for input in inputs {
            if case .level(let on, let off, .some) = input.binding {
                if on == event { return (input.role, true) }
                if off == event { return (input.role, false) }
            }
        }
        return nil
    }
}
