import ControllerHost
import ControllerDaemon

/// Answers `ctl`: status from the hub, commands into the event loop's inbox. It runs
/// on the control server's thread and never touches the controller.
struct ControlHandler<App: ControllerApplication>: Sendable {
    let status: StatusHub<App>
    let inbox: DaemonInbox<App>
    /// Whether `pulse` may drive the lines (simulated boards only: on real lines a person
    /// drops the coin).
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
            return post(.event(event), named: event.name, from: source)
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
        }
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
