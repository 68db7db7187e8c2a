/// Why a machine definition was refused: every problem found, each naming its state, event and
/// source line.
public struct MachineDefinitionError: Error, CustomStringConvertible {
    public let problems: [DefinitionProblem]

    public var description: String {
        var text = "the machine definition has \(problems.count) problem(s):"
        for problem in problems { text += "\n  " + problem.message }
        return text
    }
}

/// One problem in a machine definition.
public struct DefinitionProblem: Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A state has no block.
        case missingState
        /// A state has two blocks.
        case duplicateState
        /// A state has two `onEntry` or two `onExit`.
        case duplicateWork
        /// A state answers an event twice without a guard.
        case duplicateRow
        /// A row follows an unguarded row for the same event, so it can never run.
        case unreachableRow
        /// No path leads from the initial state to this state.
        case unreachableState
        /// An enum's raw values are not 0, 1, 2, … in declaration order.
        case symbolOrder
        /// A state's chain of superstates loops back to it.
        case parentCycle
        /// States nest deeper than ``MachineLimits/maximumDepth``.
        case tooDeep
        /// More states than ``MachineLimits/maximumStates``.
        case tooManyStates
        /// A superstate names no initial state, or only guarded ones.
        case missingInitial
        /// An initial state outside its superstate, on a state without children, or a history.
        case badInitial
        /// A history of a state without children, or with a default outside it.
        case badHistory
        /// Eventless rows that would be taken for ever.
        case eventlessLoop
        /// Rows and entry or exit work whose declared sends (`sends:`) keep the machine
        /// dispatching for ever once one of the rows is taken, no guard able to break it.
        case sendLoop
        /// A final state with rows or children, or a done event without a final state.
        case badFinal
        /// A row's or initial's targets that cannot be active together (two in one region, or
        /// none), or parallel regions written wrong (an initial or a final state directly in a
        /// parallel state).
        case badTarget
    }

    public let kind: Kind
    /// The state concerned, by name, when there is one.
    public let state: String?
    /// The event concerned, by name, when there is one.
    public let event: String?
    /// A sentence naming the source line, the state and event, and the fix.
    public let message: String

    public var description: String { message }
}
