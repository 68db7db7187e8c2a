import ControllerRuntime
import ArgumentParser
import ControllerHost
import ControllerDaemon

struct Ctl<App: ControllerApplication>: ParsableCommand {
    typealias Vocabulary = ControlVocabulary<App>

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "ctl",
            abstract: "Control a running \(App.daemonName) over its control socket.",
            discussion: """
            Commands:
            \(commandHelp)

            The socket belongs to group \(App.daemonName) (mode 0660): its members, root and the daemon's \
            own user may use it. Exit status: 0 done, 1 refused or \(App.daemonName) not reachable, 64 a \
            bad command line.
            """)
    }

    /// The commands, one a line, from the declaration.
    private static var commandHelp: String {
        var rows = [("status", "the daemon's state, \(App.gauges.map { $0.name + ", " }.joined())counters and last transitions")]
        for command in Vocabulary.commands {
            switch command {
            case .event(let event):
                rows.append((event.name, App.commands.first { $0.event == event }.map(\.summary).flatMap { $0.isEmpty ? nil : $0 } ?? "send the controller \(event.name)"))
            case .condition(let role, let on, _):
                let what = App.commands.first { $0.event == on }.map(\.summary).flatMap { $0.isEmpty ? nil : $0 }
                rows.append(("\(role) on|off", (what.map { "on: \($0); off: withdraw it" }) ?? "assert or withdraw the \(role) condition by command"))
            }
        }
        rows.append(("events [--follow]", "the recent transitions; with --follow, every new one until interrupted"))
        rows.append(("pulse \(Vocabulary.pulseRoles.map(\.rawValue).joined(separator: "|"))", "a pulse on an input (a simulated board only)"))
        if !Vocabulary.levelRoles.isEmpty {
            rows.append(("set \(Vocabulary.levelRoles.map(\.rawValue).joined(separator: "|")) on|off", "a level input's line active or inactive (a simulated board only)"))
        }
        if !PlantWords<App>.usages.isEmpty {
            rows.append(("plant \(PlantWords<App>.usages.joined(separator: "|"))", "the simulated plant's words, as a scenario says them (a simulated board only)"))
        }
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { "  " + $0.0.padding(width) + $0.1 }.joined(separator: "\n")
    }

    init() {}

    @Option(name: .long, help: ArgumentHelp("The daemon's control socket (\(App.daemonName) run --control-socket).", valueName: "path"))
    var socket: String = ControlClient<App>.defaultSocketPath

    @Flag(name: .long, help: "Print the daemon's replies as JSON lines, as they come.")
    var json = false

    @Flag(name: .long, help: "With events: keep printing transitions as they happen, until interrupted.")
    var follow = false

    @Argument(help: ArgumentHelp("\(Vocabulary.commandNames.joined(separator: ", ")).", valueName: "command"))
    var command: String

    @Argument(help: ArgumentHelp("on|off for a condition; the line for pulse; the line and on|off for set; the plant's words for plant.", valueName: "argument"))
    var arguments: [String] = []

    /// How long a reply may take: the daemon answers from its server thread at once, so a
    /// silent daemon is a stuck one, and the operator should hear so rather than wait.
    static var replyTimeoutSeconds: Double { 10 }

    func validate() throws {
        _ = try request()
    }

    /// The request the words name, or a usage error that says what would be right.
    func request() throws -> ControlRequest<App> {
        let commands = Vocabulary.commandNames
        let daemon = App.daemonName
        guard commands.contains(command) else {
            let hint = Suggestion.didYouMean(command, in: commands).map { "\($0); " } ?? ""
            throw ValidationError("unknown command \"\(command)\"; \(hint)commands: \(commands.joined(separator: ", "))")
        }
        if follow && command != "events" { throw ValidationError("--follow goes with events only") }
        switch command {
        case "pulse":
            let roles = Vocabulary.pulseRoles.map(\.rawValue)
            guard arguments.count == 1, roles.contains(arguments[0]) else {
                let hint = arguments.first.flatMap { Suggestion.didYouMean($0, in: roles) }.map { "\($0); " } ?? ""
                throw ValidationError("pulse needs an input line: \(hint)one of \(roles.joined(separator: ", "))\(otherInputs)")
            }
            return .pulse(RoleName(arguments[0]))
        case "set" where !Vocabulary.levelRoles.isEmpty:
            let roles = Vocabulary.levelRoles.map(\.rawValue)
            guard arguments.count == 2, roles.contains(arguments[0]), let on = Self.onOff(arguments[1]) else {
                let misspelt = arguments.first.flatMap { roles.contains($0) ? nil : $0 }
                let hint = misspelt.flatMap { Suggestion.didYouMean($0, in: roles) }.map { "\($0); " } ?? ""
                throw ValidationError("set needs a level input and on or off: \(hint)\(daemon) ctl set \(roles[0]) on; the lines: \(roles.joined(separator: ", "))")
            }
            return .level(RoleName(arguments[0]), on: on)
        case "plant" where !PlantWords<App>.usages.isEmpty:
            switch PlantWords<App>.action(arguments.joined(separator: " "), source: "ctl plant") {
            case .success(let action): return .plant(action)
            case .failure(let error):
                throw ValidationError("plant: \(error.reason); the words: \(PlantWords<App>.usages.joined(separator: ", "))")
            }
        case "status", "events":
            if let argument = arguments.first { throw ValidationError("\(command) takes no argument (got \"\(argument)\")") }
            return command == "status" ? .status : .events(follow: follow)
        default:
            switch Vocabulary.command(named: command) {
            case .condition(_, let on, let off)?:
                guard arguments.count == 1, let asserted = Self.onOff(arguments[0]) else {
                    throw ValidationError("\(command) needs on or off: \(daemon) ctl \(command) on")
                }
                return .command(asserted ? on : off)
            case .event(let event)?:
                if let argument = arguments.first { throw ValidationError("\(command) takes no argument (got \"\(argument)\")") }
                return .command(event)
            case nil:
                throw ValidationError("unknown command \"\(command)\"; commands: \(commands.joined(separator: ", "))")
            }
        }
    }

    /// How the inputs `pulse` does not drive are driven, for its usage error: ` (the fire alarm
    /// is `emergency on|off`)`.
    private var otherInputs: String {
        let conditions = Vocabulary.commands.compactMap { command -> String? in
            guard case .condition(let role, _, _) = command else { return nil }
            return "`\(role) on|off`"
        }
        let levels = Vocabulary.levelRoles.isEmpty ? [] : ["`set LINE on|off`"]
        let others = conditions + levels
        return others.isEmpty ? "" : " (the level inputs are \(others.joined(separator: " and ")))"
    }

    private static func onOff(_ word: String) -> Bool? {
        switch word {
        case "on": true
        case "off": false
        default: nil
        }
    }

    func run() throws {
        let request = try request()
        // Whether the request may have reached the daemon: after that, no answer is not "no".
        var sent = false
        do throws(ControlClientError) {
            let client = try ControlClient<App>(path: socket)
            sent = true
            try client.send(ControlRequestLine<App>(id: 1, request: request))
            guard let first = try client.nextReply(timeoutSeconds: Self.replyTimeoutSeconds) else {
                throw ControlClientError.refused(ControlFailure(code: "closed", message: "\(App.daemonName) closed the connection without answering; see its log (journalctl -u \(App.daemonName))"))
            }
            if case .failure(let failure) = first.reply {
                if failure.code == "permission_denied" { throw ControlClientError.permissionDenied(path: socket, reply: failure, daemon: App.daemonName) }
                if json { show(first) }
                throw ControlClientError.refused(failure)
            }
            guard case .events(follow: true) = request else {
                show(first)
                return
            }
            // Each transition reaches a pipe (`| grep`) as it happens, not a buffer later.
            Syscalls.lineBufferStandardOutput()
            show(first)
            while let next = try client.nextReply(timeoutSeconds: nil) {
                if case .failure(let failure) = next.reply { throw ControlClientError.refused(failure) }
                show(next)
            }
            throw ControlClientError.refused(ControlFailure(
                code: "closed", message: "\(App.daemonName) closed the connection: it stopped, or this follower read too slowly and was dropped"))
        } catch {
            // A failure quotes the daemon's reply: untrusted text, shown, not obeyed.
            Terminal.error(Self.outcome(of: request, error: error, sent: sent))  // Terminal.error shows it (shownLine)
            throw ControllerExit.refused
        }
    }

    /// What became of a command that did not come back `accepted`, said plainly: not applied
    /// (the daemon refused it, or it never left), or unknown (sent, and no answer: the daemon
    /// may have queued it). ctl never sends a command again by itself: a repeated `fault` or
    /// `pulse coin` would count twice.
    static func outcome(of request: ControlRequest<App>, error: ControlClientError, sent: Bool) -> String {
        let name: String
        switch request {
        case .command(let event): name = event.name
        case .pulse(let role): name = "pulse \(role.rawValue)"
        case .level(let role, let on): name = "set \(role.rawValue) \(on ? "on" : "off")"
        case .plant(let action): name = "plant \(PlantWords<App>.text(action))"
        case .status, .events: return error.description
        }
        // "closed": the connection ended with no reply, which is no answer, not a refusal.
        if case .refused(let failure) = error, failure.code != "closed" { return "\(name) not applied: \(error.description)" }
        if case .permissionDenied = error { return "\(name) not applied: \(error.description)" }
        guard sent else { return "\(name) not applied (nothing was sent): \(error.description)" }
        return "\(name): fate unknown — it was sent and no answer came, so \(App.daemonName) may have taken it: \(error.description). "
            + "Check `\(App.daemonName) ctl status` (the counters, the last transitions) before sending it again"
    }

    /// Prints a reply. What the daemon sent is untrusted input to the client: every string in
    /// it goes through ``StringProtocol/shown`` (a name) or ``StringProtocol/shownLine`` (a
    /// sentence) before it reaches the terminal, so a control sequence in it is shown, never
    /// obeyed, and a 70 KB name is cut; the client's own colours are added after.
    private func show(_ line: ControlReplyLine) {
        if json {
            print(JSONText.escapingInvisibles(String(decoding: line.encoded(daemon: App.daemonName).dropLast(), as: UTF8.self)))
            return
        }
        let style = Style(enabled: Terminal.wantsColor)
        switch line.reply {
        case .status(let snapshot):
            print(Self.describe(snapshot, style: style))
        case .accepted(let what, let note):
            print("\(style.bold(what.shown)): queued for the controller" + (note.map { "; \($0.shownLine)" } ?? ""))
        case .transitions(let transitions):
            if transitions.isEmpty { print(style.dim("no transitions yet")) }
            for transition in transitions { print(Self.describe(transition, style: style)) }
        case .event(let transition):
            print(Self.describe(transition, style: style))
        case .failure(let failure):
            print(failure.message.shownLine)
        }
    }

    /// One transition as `ctl events` prints it: an internal row marked (it stays, exiting and
    /// entering nothing), a superstate's row named, as the trace does.
    static func describe(_ transition: TransitionSummary, style: Style) -> String {
        let time = (decimal(transition.time, places: 3) + " s").leftPadded(12)
        var line = "\(style.dim(time))  \(transition.from.shown) --\(style.cyan(transition.event.shown))--> \(style.bold(transition.to.shown))"
        var notes: [String] = []
        if transition.isInternal == true { notes.append("internal") }
        if let row = transition.row { notes.append("row of \(row.shown)") }
        if !notes.isEmpty { line += style.dim(" (\(notes.joined(separator: ", ")))") }
        return line
    }

    /// `seconds` with `places` decimals (standard output here does without Foundation's formatting).
    static func decimal(_ seconds: Double, places: Int) -> String {
        // Beyond 1e12 s (and for NaN) the plain description is as readable and cannot overflow.
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds)" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(seconds) * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = String(scaled % Int64(scale))
        let padded = String(repeating: "0", count: places - fraction.count) + fraction
        return (seconds < 0 ? "-" : "") + "\(whole)" + (places > 0 ? "." + padded : "")
    }

    static func describe(_ snapshot: DaemonSnapshot, style: Style) -> String {
        var lines: [String] = []
        let degraded = snapshot.degradedReason.map { " (\($0.shownLine))" } ?? ""
        // In a machine with superstates, the configuration: `dim in on`.
        let around = snapshot.superstates.map { " in " + $0.shown }.joined()
        lines.append("state    \(style.bold(snapshot.state.shown))\(around)  phase \(snapshot.phase.shown)\(degraded)")
        // Parallel regions: the other regions' states too.
        if !snapshot.alsoActive.isEmpty { lines.append("also     " + snapshot.alsoActive.map(\.shown).joined(separator: ", ")) }
        // Each gauge on a line of its own, its value in the column the other lines' values take.
        for (name, value) in snapshot.gauges.sorted(by: { $0.key < $1.key }) {
            let label = name.shown
            lines.append(label + String(repeating: " ", count: max(1, 9 - label.count)) + "\(value)")
        }
        lines.append("uptime   \(decimal(snapshot.uptimeSeconds, places: 1)) s")
        lines.append("board    \(snapshot.board.shown)  chip \(snapshot.chip.shown)")
        lines.append("events   \(snapshot.events)  queue \(snapshot.queueDepth)  dropped commands \(snapshot.droppedCommands)  lost edges \(snapshot.lostEdges)  trace losses \(snapshot.traceLosses)")
        if snapshot.outputOverrides > 0 || !snapshot.heldOutputs.isEmpty {
            let held = snapshot.heldOutputs.sorted { $0.key < $1.key }.map { "\($0.key.shown) (\($0.value.shownLine))" }.joined(separator: ", ")
            lines.append("output overrides \(snapshot.outputOverrides)\(held.isEmpty ? "" : "  held now: \(held)")")
        }
        if !snapshot.outputs.isEmpty {
            lines.append("outputs  " + snapshot.outputs.map { output in
                let notes = [output.meaning?.shownLine, output.held?.shownLine].compactMap { $0 }
                return "\(output.name.shown) = \(output.level)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
            }.joined(separator: ", "))
        }
        if let inputs = snapshot.inputs, !inputs.isEmpty {
            lines.append("inputs   " + inputs.sorted { $0.key < $1.key }.map { "\($0.key.shown) \($0.value ? "on" : "off")" }.joined(separator: ", "))
        }
        let counters = snapshot.counters.sorted { $0.key < $1.key }.map { "\($0.key.shown) \($0.value)" }
        lines.append("counters \(counters.joined(separator: ", "))")
        if !snapshot.lastTransitions.isEmpty {
            lines.append("last transitions:")
            lines += snapshot.lastTransitions.map { "  " + describe($0, style: style) }
        }
        return lines.joined(separator: "\n")
    }
}
