/// An SCXML document as read: the states in document order (each naming its parent and
/// children), the data it declares, and everything as text, before any datamodel has read an
/// expression. `DocumentReader` makes it from the XML; `MachineBuilder` makes a machine of it.
public struct SCXMLDocument: Sendable {
    /// The file it was read from, for messages.
    public var file: String
    /// `<scxml name=…>`.
    public var name: String?
    /// `<scxml datamodel=…>`, nil when absent.
    public var datamodel: String?
    /// `<scxml initial=…>` (state numbers): where the machine starts; empty for the first state.
    public var initial: [Int]
    /// Every `<state>`, `<parallel>`, `<final>` and `<history>`, in document order: a state's
    /// number is its position here.
    public var states: [DocumentStateNode]
    /// The states directly inside `<scxml>`.
    public var topLevel: [Int]
    /// Every `<data>`, in document order (all bound at the start: early binding).
    public var data: [DataDeclaration]
    /// The line of `<scxml>`.
    public var line: Int
    /// What the loader passed over and a person should know: markup of other namespaces (an
    /// editor's layout), each note naming the file and line.
    public var notes: [String] = []

    /// Whether `state` is `ancestor` or inside it.
    public func isInside(_ state: Int, _ ancestor: Int) -> Bool {
        var walker: Int? = state
        while let current = walker {
            if current == ancestor { return true }
            walker = states[current].parent
        }
        return false
    }
}

public struct DocumentStateNode: Sendable {
    public enum Kind: Sendable, Equatable {
        case state
        case parallel
        case final
        case history(deep: Bool)
    }

    /// The `id` attribute, or one made up for a state without it (never a target then).
    public var id: String
    public var kind: Kind
    public var parent: Int?
    /// The states inside, in document order (histories included).
    public var children: [Int] = []
    public var line: Int
    /// A compound state's `initial=` targets or `<initial>` transition's; empty for its first
    /// child state. For a history: its default transition's targets.
    public var initial: [Int] = []
    /// The content of the `<initial>` (or a history's) transition.
    public var initialContent: [ExecutableOp] = []
    public var transitions: [DocumentTransition] = []
    /// Every `<onentry>` (and `<onexit>`) of the state, in document order, each its own block:
    /// an error in one ends that block, and the next still runs (SCXML 3.8, 3.9).
    public var onEntry: [[ExecutableOp]] = []
    public var onExit: [[ExecutableOp]] = []

    /// A `<state>` with states inside it.
    public var isCompound: Bool { kind == .state && !children.isEmpty }
    public var isHistory: Bool { if case .history = kind { true } else { false } }
}

public struct DocumentTransition: Sendable {
    /// The descriptors of `event=`; empty for an eventless transition.
    public var events: [EventDescriptor]
    /// The `cond=` text, for the datamodel to read.
    public var cond: String?
    /// The target states; empty for a targetless transition.
    public var targets: [Int]
    /// `type="internal"`.
    public var isInternal: Bool
    public var content: [ExecutableOp]
    public var line: Int
}

public struct DataDeclaration: Sendable {
    public var id: String
    /// `expr=` or the element's text, nil for neither.
    public var expr: String?
    public var line: Int
}

/// Executable content, as written: the small op list this loader runs.
public indirect enum ExecutableOp: Sendable {
    case raise(event: String, line: Int)
    case send(SendOp)
    case cancel(sendID: String, line: Int)
    case assign(location: String, expr: String, line: Int)
    /// `<if>`, its `<elseif>`s and `<else>`: the first branch whose condition holds (nil: else).
    case branches([ConditionalBranch])
    case log(label: String?, expr: String?, line: Int)
}

public struct SendOp: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// No `target`: the session's own external queue.
        case session
        /// `#_internal`: the internal queue.
        case `internal`
        /// A target or type SCXML's event processor does not take (`target="baz"`, `type="27"`):
        /// at run time the send raises `error.execution` and ends its block (SCXML 6.2.4).
        case invalid(reason: String)
        /// A target of the right form that no session here answers (`#_scxml_foo`, `#_parent`,
        /// an invocation): at run time the send raises `error.communication`, and its block goes
        /// on (the event could not be delivered; nothing in the block failed).
        case unreachable(String)
    }
    public var event: String
    public var target: Target
    /// A literal `delay`, in nanoseconds of virtual time (0 without one).
    public var delayNanoseconds: Int64
    public var id: String?
    public var line: Int
}

public struct ConditionalBranch: Sendable {
    /// nil for `<else>`.
    public var cond: String?
    public var content: [ExecutableOp]
    public var line: Int
}

extension SCXMLDocument {
    /// Whether some transition of the document takes `event` (a descriptor matches it).
    public func someTransitionTakes(_ event: String) -> Bool {
        states.contains { $0.transitions.contains { $0.events.contains { $0.matches(event) } } }
    }

    /// The event descriptors its transitions take, each once, sorted: what a message lists
    /// beside a name no transition takes.
    public var takenEventDescriptors: [String] {
        Array(Set(states.flatMap { $0.transitions.flatMap(\.events).map(\.description) })).sorted()
    }
}
