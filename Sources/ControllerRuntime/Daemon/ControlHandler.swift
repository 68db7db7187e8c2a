import ControllerHost
import ControllerDaemon

/// Answers `ctl`: status from the hub, commands into the event loop's inbox. It runs
/// on the control server's thread and never touches the controller.
struct ControlHandler<App: ControllerApplication>: Sendable {
    let status: StatusHub<App>
    let inbox: DaemonInbox<App>
    /// Whether `pulse`, `set` and `plant` may drive the lines (simulated boards only: on real
    /// lines a person drops the coin).
    let simulated: Bool
    /// Every refusal is a warning in the log (rate-limited).
    let warnings: DaemonWarnings

    func answer(_ request: ControlRequest<App>, from peer: PeerCredentials) -> ControlReply {
        answer(request, from: "uid \(peer.uid)")
    }

    /// `source` names the sender in the log: `uid 1000`, `MQTT`.
    func answer(_ request: ControlRequest<App>, from source: String) -> ControlReply {
        switch request {
        case .status:
            return .status(status.snapshot())
        case .events:
            return .transitions(status.snapshot().lastTransitions)
        case .command(let event):
            let reply = post(.event(event), named: event.name, from: source)
            guard case .accepted(let name, _) = reply, let held = heldByLine(ending: event) else { return reply }
            return .accepted(name, note: held)
        case .pulse(let role):
            guard simulated else {
                warnings.refused("pulse \(role.rawValue) from \(source): the board's lines are real")
                return .failure(ControlFailure(
                    code: "refused",
                    message: "pulse drives a simulated line; on real lines the \(role.rawValue) input comes from the device"))
            }
            return post(.pulse(input: App.inputIndex(named: role)!), named: "pulse \(role.rawValue)", from: source)
        case .level(let role, let on):
            guard simulated else {
                warnings.refused("set \(role.rawValue) from \(source): the board's lines are real")
                return .failure(ControlFailure(
                    code: "refused",
                    message: "set drives a simulated line; on real lines the \(role.rawValue) input comes from the device"))
            }
            return post(.level(input: App.inputIndex(named: role)!, on: on), named: "set \(role.rawValue) \(on ? "on" : "off")", from: source)
        case .plant(let action):
            let words = PlantWords<App>.text(action)
            guard simulated else {
                warnings.refused("plant \(words) from \(source): the board's lines are real")
                return .failure(ControlFailure(
                    code: "refused",
                    message: "plant \(words) acts on the simulated plant; this board's lines are real, and so is what moves them"))
            }
            return post(.plant(action), named: "plant \(words)", from: source)
        }
    }

    /// What to tell the sender of a condition's off event while the condition's line still
    /// holds it: the command changes nothing (a command never ends what the line holds).
    private func heldByLine(ending event: App.Event) -> String? {
        for index in App.inputs.indices {
            guard case .condition(let on, let off) = App.inputs[index].binding, event == off, status.conditionIsHeldByLine(index) else { continue }
            let role = App.inputs[index].role
            return "the \(role) line still signals it, so the controller stays in \(status.stateName) until that line is released "
                + "(a command never ends what a line holds; \(on.name) from the line stays in effect)"
        }
        return nil
    }

    private func post(_ command: DaemonCommand<App>, named name: String, from source: String) -> ControlReply {
        guard status.phase == .running || status.phase == .degraded else {
            warnings.refused("\(name) from \(source): the daemon is \(status.phase.name)")
            return .failure(ControlFailure(code: "not_running", message: "the daemon is \(status.phase.name); \(name) was not taken"))
        }
        guard inbox.post(command) else {
            warnings.refused("\(name) from \(source): the event loop's inbox is full")
            return .failure(ControlFailure(
                code: "inbox_full",
                message: "the event loop's inbox is full (\(inbox.capacity) commands waiting); \(name) was not taken, send it again"))
        }
        return .accepted(name)
    }
}
