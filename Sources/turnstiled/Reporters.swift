import ControllerFSM
import ControllerHost
import Turnstile
import ControllerSimulation

#if canImport(Glibc)
import Glibc
#endif

/// `--json`: one object per line on standard output, as DESIGN.md's simulation contract gives.
final class JSONReporter: SimulationReporter {
    func output(_ name: RoleName, value: Bool, at time: MachineInstant) {
        let role = OutputRole(name)
        print(#"{"type":"output","t":\#(seconds(time)),"line":"\#(role.rawValue)","value":\#(value ? 1 : 0)}"#)
    }

    func dispatched(_ record: DispatchRecord<TurnstileState, TurnstileEvent>) {
        if record.outcome == .ignored {
            print(#"{"type":"ignored","t":\#(seconds(record.time)),"state":"\#(record.from.name)","event":"\#(record.event.name)"}"#)
        } else {
            print(#"{"type":"transition","t":\#(seconds(record.time)),"from":"\#(record.from.name)","event":"\#(record.event.name)","to":"\#(record.to.name)"}"#)
        }
    }

    func expectationFailed(_ failure: ExpectationFailure) {
        Terminal.writeError("\(failure)\n")
    }

    func finished(_ summary: SimulationSummary<TurnstileApplication>) {
        let counters = summary.counters.all.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
        print(#"{"type":"summary","state":"\#(summary.state.name)","credit":\#(summary.credit),"counters":{\#(counters)}}"#)
    }

    private func seconds(_ time: MachineInstant) -> String {
        time.duration(since: .zero).secondsText
    }
}

/// The readable trace: one line per transition, ignored event and output change, then a summary.
final class TextReporter: SimulationReporter {
    private let style: Style
    /// For what goes to standard error, which may be redirected when standard output is not.
    private let errorStyle = Style(enabled: Terminal.wantsColor(on: STDERR_FILENO))

    init(colors: Bool, command: String = "simulate", header: String) {
        style = Style(enabled: colors)
        print(style.bold("turnstiled \(command)") + style.dim(" — \(header)"))
    }

    func output(_ name: RoleName, value: Bool, at time: MachineInstant) {
        let role = OutputRole(name)
        print("\(stamp(time))  " + style.dim("\(pad(role.rawValue, 8)) = \(value ? 1 : 0)  \(meaning(role, value))"))
    }

    func dispatched(_ record: DispatchRecord<TurnstileState, TurnstileEvent>) {
        let event = pad(record.event.name, 13)
        switch record.outcome {
        case .transitioned:
            print("\(stamp(record.time))  \(style.bold(event))" + style.cyan("\(record.from.name) → \(record.to.name)"))
        case .handledInternally:
            print("\(stamp(record.time))  \(style.bold(event))" + "\(record.from.name) (internal)")
        case .ignored:
            print("\(stamp(record.time))  \(event)" + style.yellow("ignored in \(record.from.name)"))
        }
    }

    func expectationFailed(_ failure: ExpectationFailure) {
        Terminal.writeError(errorStyle.red("expect failed: ") + "\(failure)\n")
    }

    func finished(_ summary: SimulationSummary<TurnstileApplication>) {
        print("")
        print(style.bold("after \(summary.endTime.secondsText) s: ") + "state \(style.cyan(summary.state.name)), credit \(summary.credit)")
        let counters = summary.counters.all.map { "\($0.key) \($0.value)" }
        print("  " + counters[..<5].joined(separator: ", "))
        print("  " + counters[5...].joined(separator: ", "))
        let c = summary.counters
        let balanced = c.coins == c.passages + c.expiredCredits + c.coinsOutOfService + summary.credit
        print("  money: \(c.coins) coins = \(c.passages) passages + \(c.expiredCredits) expired + \(c.coinsOutOfService) out of service + \(summary.credit) credit " + (balanced ? style.green("✓") : style.red("✗")))
        if summary.failedExpectations > 0 {
            print(style.red("\(summary.failedExpectations) expect(s) failed"))
        } else if summary.checkedExpectations > 0 {
            print(style.green("every expect held"))
        }
    }

    private func stamp(_ time: MachineInstant) -> String {
        let millis = time.nanoseconds / 1_000_000
        let text = "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000) s"
        return style.dim(String(repeating: " ", count: max(0, 9 - text.count)) + text)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }

    private func meaning(_ role: OutputRole, _ value: Bool) -> String {
        switch role {
        case .lock: value ? "(arm held)" : "(arm released)"
        case .alarm: value ? "(sounding)" : "(quiet)"
        case .ready: value ? "(ready)" : "(not ready)"
        case .inhibit: value ? "(coins refused)" : "(coins accepted)"
        }
    }
}
