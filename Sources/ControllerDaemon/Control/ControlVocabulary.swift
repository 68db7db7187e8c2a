import ControllerHost

/// The control protocol's words for application `App`, read from its declaration: the runtime's
/// own commands (`status`, `events`, `pulse`, `set`) and the application's.
///
/// Each of `ControllerApplication/commands` is a command of its event's name
/// (`{"command":"repair"}`), except a condition input's pair: when both its `on` and `off`
/// events are direct commands, the condition is one command of the role's name with a boolean
/// `on` (`{"command":"emergency","on":true}`). `pulse` takes a pulse input's name as `line`;
/// `set` (present when the application has level inputs) takes a level input's and `on`.
public enum ControlVocabulary<App: ControllerApplication> {
    /// One of the application's commands on the wire.
    public enum Command: Equatable, Sendable {
        /// A direct command sent as it is named.
        case event(App.Event)
        /// A condition input asserted (`on`) or withdrawn (`off`) by command.
        case condition(RoleName, on: App.Event, off: App.Event)

        /// Its `"command"` word.
        public var name: String {
            switch self {
            case .event(let event): event.name
            case .condition(let role, _, _): role.rawValue
            }
        }
    }

    /// The application's commands, in the order of its declaration (a condition where the first
    /// of its events is).
    public static var commands: [Command] {
        let direct = App.commands.map(\.event)
        let conditions: [(role: RoleName, on: App.Event, off: App.Event)] = App.inputs.compactMap { input in
            guard case .condition(let on, let off) = input.binding, direct.contains(on), direct.contains(off) else { return nil }
            return (input.role, on, off)
        }
        var commands: [Command] = []
        for event in direct {
            if let condition = conditions.first(where: { $0.on == event || $0.off == event }) {
                let command = Command.condition(condition.role, on: condition.on, off: condition.off)
                if !commands.contains(command) { commands.append(command) }
            } else {
                commands.append(.event(event))
            }
        }
        return commands
    }

    /// The command whose word is `name`.
    public static func command(named name: String) -> Command? { commands.first { $0.name == name } }

    /// The command that sends `event`, and the `on` it takes when it is a condition's.
    static func command(sending event: App.Event) -> (command: Command, on: Bool?)? {
        for command in commands {
            switch command {
            case .event(let sent) where sent == event: return (command, nil)
            case .condition(_, let on, let off) where on == event || off == event: return (command, on == event)
            default: continue
            }
        }
        return nil
    }

    /// The inputs `pulse` drives: the pulse inputs.
    public static var pulseRoles: [RoleName] {
        App.inputs.compactMap { input in
            if case .pulse = input.binding { return input.role }
            return nil
        }
    }

    /// The inputs `set` drives: the level inputs (a condition has its command instead) but those
    /// the application's simulated plant drives (the barrier's limit switches follow its arm).
    public static var levelRoles: [RoleName] {
        App.inputs.compactMap { input in
            if case .level = input.binding, !App.Plant.drivenInputs.contains(input.role) { return input.role }
            return nil
        }
    }

    /// Every command name a request may carry, as `ctl` spells them: `status`, the
    /// application's, `events`, `pulse`, `set` when it has level inputs, and `plant` when its
    /// simulated plant has words.
    public static var commandNames: [String] {
        ["status"] + commands.map(\.name) + ["events", "pulse"] + (levelRoles.isEmpty ? [] : ["set"])
            + (PlantWords<App>.usages.isEmpty ? [] : ["plant"])
    }

    /// How a message names the thing on input `role`'s line: its summary up to the first colon
    /// ("the fire-alarm contact"), or "the ROLE line".
    static func subject(of role: RoleName) -> String {
        let summary = App.inputs.first { $0.role == role }?.summary ?? ""
        let head = summary.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return head.isEmpty ? "the \(role) line" : head
    }
}
