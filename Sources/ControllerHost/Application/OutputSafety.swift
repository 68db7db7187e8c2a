import ControllerFSM

/// What must be true of the world for an output to be on: its *precondition*. The barrier's
/// green lamp ("drive on") assumes the arm is up, so it declares that the up limit is active.
///
/// The runtime never enforces a precondition by overriding the machine (the host drives what the
/// machine asks); it checks it, as an invariant, wherever invariants are checked: `explore()`,
/// `soak` and the simulator (see ``ControllerApplication/checkedInvariants``). A machine that
/// could ask for the output while the condition is false is a defect of the machine.
public struct OutputPrecondition<App: ControllerApplication>: Sendable {
    /// The condition, as a person reads it after "on only when": "the up limit is active".
    public let name: String
    /// The level the condition guards: `true` (the default) for what must hold while the output
    /// is on; `false` for an output whose safe level is on (the turnstile's lock, released at 0).
    public let level: Bool
    public let holds: MachineCondition<App>

    /// A precondition over the innermost state (the first region's) and the context.
    public init(_ name: String, whenLevel level: Bool = true, holds: @escaping @Sendable (App.State, App.Context) -> Bool) {
        self.name = name
        self.level = level
        self.holds = MachineCondition(holds)
    }

    /// A precondition over every active state, of every region, and the context.
    @_disfavoredOverload
    public init(_ name: String, whenLevel level: Bool = true, holds: @escaping @Sendable (ActiveConfiguration<App.State>, App.Context) -> Bool) {
        self.name = name
        self.level = level
        self.holds = MachineCondition(holds)
    }
}

/// An interlock between outputs that name it (``OutputDeclaration/interlock``): the host never
/// turns one on while another is on, unless the declaration says when the interlock yields.
///
/// A security interlock's two door strikes must never both release, except in a fire, when
/// every door releases: declare `InterlockDeclaration("strikes", yieldsTo: "a fire alarm") {
/// state, _ in state == .fireAlarm }`. While `yieldsWhen` holds the host drives every output of
/// the interlock as the machine asks; otherwise it holds the later one off and says so (see
/// ``ControllerCore/outputOverrides``). An interlock no declaration names never yields.
///
/// `explore()` refuses a machine that asks for two outputs of one interlock at once in a
/// configuration where the interlock does not yield: the host would silently disagree with it.
public struct InterlockDeclaration<App: ControllerApplication>: Sendable {
    /// The name the outputs give in ``OutputDeclaration/interlock``.
    public let name: String
    /// What the interlock yields to, as a person reads it: "a fire alarm".
    public let yieldsTo: String
    public let yieldsWhen: MachineCondition<App>

    /// An interlock that yields by the innermost state (the first region's) and the context.
    public init(_ name: String, yieldsTo: String, when yieldsWhen: @escaping @Sendable (App.State, App.Context) -> Bool) {
        self.name = name
        self.yieldsTo = yieldsTo
        self.yieldsWhen = MachineCondition(yieldsWhen)
    }

    /// An interlock that yields by every active state, of every region, and the context.
    @_disfavoredOverload
    public init(_ name: String, yieldsTo: String, when yieldsWhen: @escaping @Sendable (ActiveConfiguration<App.State>, App.Context) -> Bool) {
        self.name = name
        self.yieldsTo = yieldsTo
        self.yieldsWhen = MachineCondition(yieldsWhen)
    }
}

extension ControllerApplication {
    /// Every interlock the outputs name, in the order they are first named, each with its
    /// members' indices in ``outputs`` and its declaration (nil: it never yields).
    public static var interlockGroups: [(name: String, members: [Int], declaration: InterlockDeclaration<Self>?)] {
        var groups: [(name: String, members: [Int], declaration: InterlockDeclaration<Self>?)] = []
        for (index, output) in outputs.enumerated() {
            guard let name = output.interlock else { continue }
            if let at = groups.firstIndex(where: { $0.name == name }) {
                groups[at].members.append(index)
            } else {
                groups.append((name, [index], interlocks.first { $0.name == name }))
            }
        }
        return groups
    }

    /// Every invariant the runtime checks after each step (`explore()`, `soak`, the simulator):
    /// the application's own ``invariants``; each output's precondition ("green on only when the
    /// up limit is active"); and each interlock's exclusion ("door_a and door_b, interlock
    /// strikes, are never asked on together, except in a fire alarm").
    public static var checkedInvariants: [Invariant<Self>] {
        var all = invariants
        for output in outputs {
            guard let precondition = output.precondition else { continue }
            let level = output.level
            let guarded = precondition.level
            all.append(Invariant("\(output.role) \(guarded ? "on" : "off") only when \(precondition.name)") { (active: ActiveConfiguration<State>, context: Context) in
                level(active, context) != guarded || precondition.holds(active, context)
            })
        }
        for group in interlockGroups where group.members.count > 1 {
            let members = group.members.map { outputs[$0] }
            let levels = members.map(\.level)
            let yields = group.declaration?.yieldsWhen
            let names = members.map(\.role.rawValue).joined(separator: ", ")
            let except = group.declaration.map { ", except in \($0.yieldsTo)" } ?? ""
            all.append(Invariant("the outputs of interlock \(group.name) (\(names)) are never asked on together\(except)") { (active: ActiveConfiguration<State>, context: Context) in
                var on = 0
                for level in levels where level(active, context) { on += 1 }
                return on < 2 || (yields?.callAsFunction(active, context) ?? false)
            })
        }
        return all
    }
}
