import ControllerFSM

/// The inputs' side of a ``ControllerCore``: how each line's edges become the machine's events.
/// It holds the debouncer, the count of edges the backend lost (gaps in their sequence
/// numbers), each held-too-long input's deadline, and each condition's two sources (the line
/// and commands); it keeps the levels the declaration keeps in the context.
///
/// A value with no chip and no machine: it says which event an edge, a command or a deadline
/// is, and the core sends it. Indexes are declaration indexes (``ControllerApplication/inputs``),
/// *lines* the input request's.
// The queries the event path makes (`nextHeldDeadline`, `stillHeldTooLong`) are `mutating`
// though they change nothing: the bindings are a stored property of the controller, a class,
// and a call of a non-mutating method there copied the whole value first (a retain and release
// of each of its arrays and the debouncer's), where a mutating one works in place.
@usableFromInline
struct InputBindings<App: ControllerApplication> {
    /// The declaration index of each line of the input request.
    @usableFromInline let roles: [Int]
    /// Each line's debounce period as the board gives it (a backend that debounces itself gets
    /// zero periods here).
    let periods: [Duration]
    @usableFromInline var debouncer: EdgeDebouncer
    /// The sequence number the next raw edge should carry: a request numbers its edges from 0,
    /// so edges lost before the first read are counted too.
    @usableFromInline var expectedSequence: UInt64 = 0
    /// Edges the backend lost before they were read.
    @usableFromInline var lostEdges = 0
    /// When each input's held level becomes "held too long"; `Int64.max` when it is not held
    /// (or the input declares no such limit).
    @usableFromInline var heldDeadlines: [Int64]
    /// Each held-too-long limit in force, in nanoseconds.
    @usableFromInline var heldLimits: [Int64]
    /// Held past its limit and still held: the sensor is stuck, so its event is raised again
    /// whenever the machine settles where the declaration says it must not stay.
    @usableFromInline var heldTooLong: [Bool]
    /// Each condition input's two sources.
    @usableFromInline var conditions: [ConditionSources]

    /// - Parameters:
    ///   - roles: the declaration index of each line of the input request.
    ///   - periods: each line's debounce period.
    ///   - settled: the backend debounces (the kernel's debounce in libgpiod v2): edges arrive
    ///     settled, and filtering them again would delay each by a second period.
    init(settings: App.Settings, roles: [Int], periods: [Duration], settled: Bool) {
        self.roles = roles
        self.periods = periods
        debouncer = EdgeDebouncer(periods: settled ? periods.map { _ in .zero } : periods)
        heldDeadlines = Array(repeating: .max, count: App.inputs.count)
        heldLimits = Array(repeating: .max, count: App.inputs.count)
        heldTooLong = Array(repeating: false, count: App.inputs.count)
        conditions = Array(repeating: ConditionSources(), count: App.inputs.count)
        retime(settings)
    }

    /// Takes the held-too-long limits of new settings; a deadline already running keeps its time.
    /// Written in place, by index: a reload runs on the event loop, where nothing may allocate,
    /// and this code is not specialised for the application, where `map` and `enumerated()`
    /// allocate (a new array; an iterator's coroutine frame).
    mutating func retime(_ settings: App.Settings) {
        let inputs = App.inputs
        for role in 0..<inputs.count {
            heldLimits[role] = inputs[role].heldTooLong.map { settings[keyPath: $0.limit.keyPath].nanosecondCount } ?? .max
        }
    }

    /// The line `line` read `active` at start-up: its debounced level, a kept level written to
    /// `context`, a held line's clock started at `now`; a condition found on is returned, to be
    /// sent once every line is read.
    mutating func start(line: Int, active: Bool, context: inout App.Context, at now: Int64) -> App.Event? {
        debouncer.setLevel(active, ofLine: line)
        let role = roles[line]
        if let held = App.inputs[role].heldTooLong, held.holds(active: active), heldLimits[role] != .max {
            heldDeadlines[role] = MachineInstant.saturatingSum(now, heldLimits[role])
        }
        switch App.inputs[role].binding {
        case .condition(let on, _):
            return conditions[role].set(.line, active: active) == true ? on : nil
        case .level(_, _, let keep?):
            keep(&context, active)
            return nil
        case .level, .pulse:
            return nil
        }
    }

    /// A new request (after the chip came back): it numbers its edges from 0, and its
    /// debouncer starts from the levels last taken.
    mutating func reattach(settled: Bool) {
        expectedSequence = 0
        debouncer = EdgeDebouncer(
            periods: settled ? periods.map { _ in .zero } : periods,
            initialLevels: (0..<roles.count).map { debouncer.level(ofLine: $0) })
    }

    /// The line `line` read `active` on a new request: true, and the level taken, when it
    /// differs from the last one taken (what changed while the chip was gone, an edge now).
    mutating func retake(line: Int, active: Bool) -> Bool {
        guard active != debouncer.level(ofLine: line) else { return false }
        debouncer.setLevel(active, ofLine: line)
        return true
    }

    // MARK: The event path

    /// Takes a raw edge from the chip: a gap in sequence numbers says edges were lost (the
    /// kernel's buffer overflowed), counted, never silently ignored; then the debouncer has it.
    @inlinable @inline(__always)
    mutating func feed(_ raw: EdgeEvent) {
        if raw.sequence > expectedSequence {
            lostEdges += Int(clamping: raw.sequence - expectedSequence)
        }
        expectedSequence = raw.sequence &+ 1
        debouncer.feed(raw)
    }

    /// The next debounced edge due by `now`, earliest first.
    @inlinable
    mutating func nextAcceptedEdge(now: MachineInstant) -> EdgeEvent? {
        debouncer.nextAcceptedEdge(now: now)
    }

    /// The event a debounced edge is, if any (see ``send(for:role:binding:context:)``), for code off
    /// the event path.
    mutating func event(for edge: EdgeEvent, role: Int, context: inout App.Context) -> (event: App.Event, countIfIgnored: Bool)? {
        let binding = App.inputs[role].binding
        return send(for: edge, role: role, binding: binding, context: &context).map { (binding.event(on: $0.on), $0.countIfIgnored) }
    }

    /// What a debounced edge of input `role` sends, if anything: a pulse's active edge, either
    /// edge of a level (its level kept in `context` first), a condition's combined change — its
    /// `binding`'s event for `on` (``InputBinding/event(on:)``; the caller reads the binding
    /// once, for both). A held-too-long input's clock starts on the held side and stops off it.
    /// `countIfIgnored` is false for a level that keeps the context: the edge was taken even
    /// where no row answers it.
    ///
    /// Not the event itself in a tuple: an application whose types are generic (a chart's, its
    /// events numbers of its space) runs this code unspecialized, and there a tuple or an
    /// optional of its event is a type made at run time, on first use: an allocation in the
    /// event loop (`scripts/check-loop-allocations.sh doord` found three).
    @inlinable @inline(__always)
    mutating func send(for edge: EdgeEvent, role: Int, binding: InputBinding<App>, context: inout App.Context) -> EdgeSend? {
        let time = edge.timestamp.nanoseconds
        let active = edge.kind.isActive
        // The declaration's fields, each read in place: a copy of the whole declaration
        // retains and releases every reference it holds.
        if heldLimits[role] != .max, let held = App.inputs[role].heldTooLong {
            let onHeldSide = held.holds(active: active)
            heldDeadlines[role] = onHeldSide ? MachineInstant.saturatingSum(time, heldLimits[role]) : .max
            if !onHeldSide { heldTooLong[role] = false }
        }
        switch binding {
        case .pulse:
            return active ? EdgeSend(on: true, countIfIgnored: true) : nil
        case .level(_, _, let keep):
            keep?(&context, active)
            return EdgeSend(on: active, countIfIgnored: keep == nil)
        case .condition:
            return conditions[role].set(.line, active: active).map { EdgeSend(on: $0, countIfIgnored: true) }
        }
    }

    /// The earliest held-too-long deadline and its input; `(Int64.max, -1)` when none runs.
    /// (Mutating: see the note at the top of the file.)
    @inlinable
    var nextHeldDeadline: (time: Int64, role: Int) {
        mutating get {
            var earliest = (time: Int64.max, role: -1)
            for role in 0..<heldDeadlines.count where heldDeadlines[role] < earliest.time { earliest = (heldDeadlines[role], role) }
            return earliest
        }
    }

    /// Input `role`'s deadline passed: it is held too long, and its event is returned.
    @inlinable @inline(__always)
    mutating func heldPastLimit(_ role: Int) -> App.Event? {
        guard role >= 0, let stuck = App.inputs[role].heldTooLong else { return nil }
        heldDeadlines[role] = .max
        heldTooLong[role] = true
        return stuck.event
    }

    /// The event of input `role`, still held too long, when the machine settled where the
    /// declaration's `again` says it must not stay (`holds` evaluates it on the machine); `nil`
    /// otherwise. (Mutating: see the note at the top of the file.)
    @inlinable @inline(__always)
    mutating func stillHeldTooLong(_ role: Int, where holds: (MachineCondition<App>) -> Bool) -> App.Event? {
        guard heldTooLong[role], let held = App.inputs[role].heldTooLong, holds(held.again) else { return nil }
        return held.event
    }

    /// The earliest of the held-too-long deadlines and the debouncer's; `Int64.max` when none.
    var nextDeadline: Int64 {
        mutating get { Swift.min(nextHeldDeadline.time, debouncer.nextDeadline?.nanoseconds ?? .max) }
    }

    // MARK: Commands

    /// `event` as a command: `.dispatched` when the machine is to be sent `event` itself, the
    /// reason when it changes nothing the machine sees. A condition's on or off event is that
    /// condition's second source beside the line (see `ConditionSources`), which can declare the
    /// condition, never end one the line still signals; a command that changes the condition
    /// changes it to what the command says, so the event sent is always the command's own.
    ///
    /// The answer is a non-generic enum on purpose: this code is not specialised for the
    /// application, and a generic type's metadata is made (allocated) on its first use, which
    /// would be the first command on the event loop.
    mutating func command(_ event: App.Event) -> CommandOutcome {
        let inputs = App.inputs
        for index in 0..<inputs.count {
            guard case .condition(let on, let off) = inputs[index].binding, event == on || event == off else { continue }
            let declared = event == on
            guard conditions[index].set(.command, active: declared) != nil else {
                return !declared && conditions[index].line ? .heldByLine(inputs[index].role) : .alreadyInEffect
            }
            return .dispatched
        }
        return .dispatched
    }

    // MARK: What /status reads

    /// Bit `index` set for each condition input (of the first 64) whose line holds it now.
    var conditionsHeldByLine: UInt64 {
        var mask: UInt64 = 0
        for index in 0..<Swift.min(conditions.count, 64) where conditions[index].line { mask |= 1 << UInt64(index) }
        return mask
    }

    /// Bit `index` set for each level input whose debounced line is active and each condition
    /// held by either source, of the first 64.
    var inputsOn: UInt64 {
        var mask: UInt64 = 0
        for line in 0..<roles.count where roles[line] < 64 {
            if case .level = App.inputs[roles[line]].binding, debouncer.level(ofLine: line) { mask |= 1 << UInt64(roles[line]) }
        }
        for role in 0..<Swift.min(conditions.count, 64) where conditions[role].isActive { mask |= 1 << UInt64(role) }
        return mask
    }
}

/// What a debounced edge sends (``InputBindings/send(for:role:binding:context:)``): its binding's event
/// for `on`, and whether the machine's ignoring it is counted.
@usableFromInline
struct EdgeSend {
    @usableFromInline let on: Bool
    @usableFromInline let countIfIgnored: Bool

    @inlinable init(on: Bool, countIfIgnored: Bool) {
        self.on = on
        self.countIfIgnored = countIfIgnored
    }
}
