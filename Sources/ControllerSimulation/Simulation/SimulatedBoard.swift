import ControllerHost
import ControllerFSM
import ControllerFSMSim

/// A `SimChip` wired as a board file says: one line per role, named lines under their names,
/// numbered lines at their offsets, inputs wired with the board's polarity.
public struct SimulatedBoard<App: ControllerApplication> {
    public let chip: SimChip
    public let inputOffsets: [RoleName: GPIOLineOffset]
    public let outputRoles: [GPIOLineOffset: RoleName]

    public init(board: Board<App>, clock: ManualClock, seed: UInt64, outputSink: @escaping @Sendable (SimOutputChange) -> Void) {
        var names: [GPIOLineOffset: SimLine] = [:]
        var inputOffsets: [RoleName: GPIOLineOffset] = [:]
        var outputRoles: [GPIOLineOffset: RoleName] = [:]
        // Numbered lines first, so named ones take the free offsets around them.
        var taken = Set<UInt32>()
        for line in board.inputs.values.map(\.line) + board.outputs.values.map(\.line) {
            if case .offset(let offset) = line { taken.insert(offset) }
        }
        var nextFree: UInt32 = 0
        func place(_ selector: LineSelector, activeLow: Bool) -> GPIOLineOffset {
            switch selector {
            case .offset(let offset):
                // Unnamed, as on a chip whose driver names no lines: a name made up here could
                // collide with a line the board names (a user line called "LOCK").
                let at = GPIOLineOffset(offset)
                names[at] = SimLine(nil, activeLow: activeLow)
                return at
            case .name(let name):
                while taken.contains(nextFree) { nextFree += 1 }
                taken.insert(nextFree)
                let at = GPIOLineOffset(nextFree)
                names[at] = SimLine(name, activeLow: activeLow)
                return at
            }
        }
        for (role, line) in board.inputs.wired {
            inputOffsets[role] = place(line.line, activeLow: line.activeLow)
        }
        for (role, line) in board.outputs.wired {
            outputRoles[place(line.line, activeLow: line.activeLow)] = role
        }
        let count = Int((names.keys.map(\.rawValue).max() ?? 0) + 1)
        let lines = (0..<count).map { names[GPIOLineOffset(UInt32($0))] ?? SimLine(nil) }
        chip = SimChip(name: "simchip0", label: board.chip.text, lines: lines, clock: clock, seed: seed, outputSink: outputSink)
        self.inputOffsets = inputOffsets
        self.outputRoles = outputRoles
    }
}
