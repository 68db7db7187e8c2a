import ControllerFSM

/// The smallest value one timing may have, given the rest of the board: a timing below it is
/// accepted by the machine and then misbehaves (a turnstile whose relock timeout is shorter than
/// its push line's debounce expires every coin unused), so `check`, `run`, `simulate` and a
/// reload refuse it, naming the relation and the smallest value that works. An application
/// declares its relations with its settings (``SettingsDeclaration/relations``).
public struct TimingRelation<App: ControllerApplication>: Sendable {
    /// The key path of the timing refused, e.g. `turnstile.relock_timeout`.
    public var key: String
    /// The relation as a person reads it.
    public var relation: String
    /// What goes wrong when it does not hold.
    public var why: String
    /// The timing's value on `board`.
    public var value: @Sendable (Board<App>) -> Duration
    /// The smallest value that works on `board`.
    public var smallest: @Sendable (Board<App>) -> Duration

    public init(key: String, relation: String, why: String, value: @escaping @Sendable (Board<App>) -> Duration,
                 smallest: @escaping @Sendable (Board<App>) -> Duration) {
        (self.key, self.relation, self.why, self.value, self.smallest) = (key, relation, why, value, smallest)
    }

    /// Refuses `board` when the relation does not hold.
    public func check(_ board: Board<App>, file: String) throws(BoardFileError) {
        let value = value(board)
        let smallest = smallest(board)
        guard value < smallest else { return }
        throw BoardFileError(
            file: file, location: .keyPath(key),
            reason: "\(value.secondsText) s is too short: \(relation), since \(why)",
            hint: "the smallest that works on this board is \(TimingRelations.roundedUp(smallest).secondsText) s")
    }

}

package enum TimingRelations {
    /// Up to the next whole microsecond, as ``Swift/Duration/secondsText`` writes it: the value
    /// a message names must itself work.
    package static func roundedUp(_ duration: Duration) -> Duration {
        let nanoseconds = duration.nanosecondCount
        let micros = nanoseconds / 1_000 + (nanoseconds % 1_000 == 0 ? 0 : 1)
        return .microseconds(micros)
    }
}
