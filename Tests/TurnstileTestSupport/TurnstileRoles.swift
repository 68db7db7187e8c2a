/// The turnstile's input roles as an enumeration, for the tests' records and tables (the
/// application itself names its roles in its declaration).
///
/// What an input line is wired to. The raw value is the key under `[inputs]` in a board file.
package enum InputRole: String, CaseIterable, Hashable, Sendable {
    /// The coin acceptor's pulse output: one pulse per accepted coin.
    case coin
    /// The passage sensor on the arm: one pulse per push; held active, it is a jam.
    case push
    /// The service key: a pulse requests a repair.
    case service
    /// The fire-alarm contact: a level, active for as long as the alarm lasts.
    case emergency
}

/// What an output line drives. The raw value is the key under `[outputs]` in a board file.
package enum OutputRole: String, CaseIterable, Hashable, Sendable {
    /// The lock relay: logical 1 holds the arm.
    case lock
    /// The alarm sounder.
    case alarm
    /// The "ready" lamp, on while the turnstile is in service.
    case ready
    /// The coin acceptor's inhibit input: logical 1 makes it return coins.
    case inhibit
}
