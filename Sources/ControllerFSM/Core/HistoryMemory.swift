/// What each history pseudo-state remembers, by slot: one state (the superstate's child, or for
/// a deep history the innermost state) in a machine without parallel regions; with them, every
/// state it stands for (one per region inside a parallel state), in the order of the state
/// enum. Nothing before its superstate was ever left. Reserved when the machine is built; a
/// value, so a copy of a machine remembers on its own.
@usableFromInline
struct HistoryMemory {
    /// By slot, `width` places: the states remembered. With one place a slot, -1 is nothing
    /// remembered; with several, `counts[slot]` says how many are.
    @usableFromInline var states: ContiguousArray<Int32>
    /// By slot, with several places a slot; empty with one.
    @usableFromInline var counts: ContiguousArray<Int32>
    /// The most states one history can remember: 1 without parallel regions.
    @usableFromInline let width: Int

    init(slots: Int, width: Int) {
        self.width = width
        states = ContiguousArray(repeating: -1, count: slots * width)
        counts = ContiguousArray(repeating: 0, count: width == 1 ? 0 : slots)
    }

    /// How many states history `slot` remembers: 0 before its superstate was ever left.
    @inlinable @inline(__always)
    func count(_ slot: Int) -> Int { width == 1 ? (states[slot] < 0 ? 0 : 1) : Int(counts[slot]) }

    /// The first state history `slot` remembers, -1 before its superstate was ever left: in a
    /// memory of one place a slot, the one state, read with one load.
    @inlinable @inline(__always)
    func first(_ slot: Int) -> Int {
        width == 1 ? Int(states[slot]) : (counts[slot] > 0 ? Int(states[slot &* width]) : -1)
    }

    /// The `index`th state history `slot` remembers.
    @inlinable @inline(__always)
    func state(_ slot: Int, _ index: Int) -> Int { Int(states[slot &* width &+ index]) }

    /// History `slot` remembers `state`, in a memory of one place a slot (a machine without
    /// parallel regions): one store, as the nested path's exit has always cost.
    @inlinable @inline(__always)
    mutating func remember(_ state: Int, in slot: Int) {
        states[slot] = Int32(state)
    }

    /// History `slot` is about to remember a new set of states, added one at a time (a memory
    /// of several places a slot).
    @inlinable
    mutating func forget(_ slot: Int) { counts[slot] = 0 }

    /// Adds `state` to what history `slot` remembers.
    @inlinable
    mutating func add(_ state: Int, to slot: Int) {
        states[slot &* width &+ Int(counts[slot])] = Int32(state)
        counts[slot] &+= 1
    }
}
