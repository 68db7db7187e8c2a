import ControllerHost
import ControllerFSM
import ControllerFSMSim

/// The application's plant on a simulated chip: it hears the outputs the chip reports and puts
/// the input levels it answers with on their lines, with the board's contact bounce, so the
/// controller debounces them like any input.
package final class PlantDriver<App: ControllerApplication> {
    private var plant: App.Plant
    private let chip: SimChip
    /// The plant's inputs the board wires, and their lines.
    private let roles: [RoleName]
    private let offsets: [GPIOLineOffset]
    /// The level last put on each of those lines.
    private var levels: [Bool]
    private let bounceEdges: Int
    private let bounceWindow: Duration

    /// The plant as the board's `[sim]` sets it up; its levels are on the lines at `start`,
    /// without bounce: that is the world before the controller starts.
    package init(board: Board<App>, chip: SimChip, inputOffsets: [RoleName: GPIOLineOffset], at start: MachineInstant) {
        let plant = App.Plant(settings: board.sim.plant, at: start)
        let wired = App.Plant.drivenInputs.compactMap { role in inputOffsets[role].map { (role, $0) } }
        roles = wired.map(\.0)
        offsets = wired.map(\.1)
        levels = roles.map { plant.level(of: $0) }
        for index in offsets.indices where levels[index] {
            chip.scheduleLevel(line: offsets[index], at: start, active: true)
        }
        self.plant = plant
        self.chip = chip
        bounceEdges = board.sim.bounceEdges
        bounceWindow = board.sim.bounceWindow
    }

    /// When the plant will next change an input by itself.
    package var nextChange: MachineInstant? { plant.nextChange }

    /// The controller wrote `level` to `role` at `time`.
    package func output(_ role: RoleName, _ level: Bool, at time: MachineInstant) {
        plant.output(role, level, at: time)
    }

    /// A scenario's plant word at `time`.
    package func perform(_ action: App.Plant.Action, at time: MachineInstant) {
        plant.perform(action, at: time)
        advance(to: time)
    }

    /// Brings the plant to `now` and puts every level it changed on its line at `now`.
    package func advance(to now: MachineInstant) {
        plant.advance(to: now)
        for index in roles.indices {
            let level = plant.level(of: roles[index])
            guard level != levels[index] else { continue }
            levels[index] = level
            chip.scheduleLevel(line: offsets[index], at: now, active: level, bounceEdges: bounceEdges, bounceWindow: bounceWindow)
        }
    }
}
