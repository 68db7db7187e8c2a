import ControllerRuntime
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation

/// `soak`'s random world, from the declaration alone: mostly pulses on the required pulse
/// inputs and the level inputs turned over (the turnstile's coins and passages); now and then a
/// direct command, a pulse on an optional input (a service key) or an alarm (a condition input)
/// that is soon withdrawn.
struct SoakDriver<App: ControllerApplication> {
    /// Percent of actions that are a direct command (the turnstile's fault).
    static var commandPercent: Int { 1 }
    /// Percent of actions that raise a condition (a fire alarm) while none is raised.
    static var conditionPercent: Int { 2 }
    /// Percent of actions that pulse an optional input (a repair, for the turnstile).
    static var optionalPulsePercent: Int { 2 }
    /// While a condition is raised, one action in this many withdraws it.
    static var conditionEndsOneIn: Int { 4 }

    private let pulses: [RoleName]
    private let optionalPulses: [RoleName]
    private let levels: [RoleName]
    private let conditions: [RoleName]
    private let commands: [App.Event]
    private var raised: [RoleName: Bool]

    init(board: Board<App>) {
        var pulses: [RoleName] = [], optionalPulses: [RoleName] = [], levels: [RoleName] = [], conditions: [RoleName] = []
        var conditionEvents: [App.Event] = []
        for input in App.inputs {
            let wired = board.inputs[input.role] != nil
            switch input.binding {
            case .pulse where wired && input.isRequired: pulses.append(input.role)
            case .pulse: if wired { optionalPulses.append(input.role) }
            case .level: if wired { levels.append(input.role) }
            case .condition(let on, let off):
                // Its events are the line's, never sent as plain commands.
                conditionEvents += [on, off]
                if wired { conditions.append(input.role) }
            }
        }
        self.pulses = pulses
        self.optionalPulses = optionalPulses
        self.levels = levels
        self.conditions = conditions
        commands = App.commands.map(\.event).filter { !conditionEvents.contains($0) }
        raised = Dictionary(uniqueKeysWithValues: conditions.map { ($0, false) })
    }

    /// The next action. A raised condition is mostly left standing (the machine is then in its
    /// alarm state), withdrawn one time in ``conditionEndsOneIn``.
    mutating func randomAction(_ random: inout SplitMix64) -> ScenarioAction<App> {
        if let up = conditions.first(where: { raised[$0] == true }), random.next(below: UInt64(Self.conditionEndsOneIn)) == 0 {
            raised[up] = false
            return .level(up, on: false)
        }
        let roll = Int(random.next(below: 100))
        if roll < Self.commandPercent, !commands.isEmpty {
            return .command(commands[Int(random.next(below: UInt64(commands.count)))])
        }
        if roll < Self.commandPercent + Self.conditionPercent, let down = conditions.first(where: { raised[$0] == false }) {
            raised[down] = true
            return .level(down, on: true)
        }
        if roll < Self.commandPercent + Self.conditionPercent + Self.optionalPulsePercent, !optionalPulses.isEmpty {
            return .pulse(optionalPulses[Int(random.next(below: UInt64(optionalPulses.count)))], width: nil)
        }
        let lines = pulses.count + levels.count
        guard lines > 0 else { return commands.isEmpty ? .end : .command(commands[0]) }
        let pick = Int(random.next(below: UInt64(lines)))
        if pick < pulses.count { return .pulse(pulses[pick], width: nil) }
        return .level(levels[pick - pulses.count], on: random.next(below: 2) == 0)
    }

    /// The first of the application's invariants that does not hold now, by name.
    func brokenInvariant<Chip: GPIOChip>(_ controller: Controller<App, Chip>) -> String? {
        let invariants = App.checkedInvariants
        let active = controller.configuration
        for index in invariants.indices where !invariants[index].holds(active, controller.context) {
            return invariants[index].name
        }
        return nil
    }
}
