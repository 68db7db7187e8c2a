import Foundation
import ControllerHost
import Turnstile

/// What the store holds as committed: every count since the database was created, and the last
/// state and credit recorded. A daemon reports these, never the controller's live counters, so it
/// never reports a count a crash could take back.
public struct DurableTotals: Sendable, Equatable {
    /// Every kind in `CountKind.all` (zero when nothing of it happened), summed over all sessions.
    public var counters: [String: Int]
    /// The credit after the last recorded step of the current (or, read from a file, the latest)
    /// session.
    public var credit: Int
    /// The state after that step; `locked` before a session recorded anything.
    public var state: TurnstileState
    /// When the last recorded step happened (wall clock, nanoseconds since 1970 UTC), or `nil` if
    /// no session recorded one.
    public var lastEventUnixNanoseconds: Int64?

    public init(counters: [String: Int], credit: Int, state: TurnstileState, lastEventUnixNanoseconds: Int64?) {
        var all = Dictionary(uniqueKeysWithValues: CountKind.all.map { ($0, 0) })
        all.merge(counters) { $1 }
        self.counters = all
        self.credit = credit
        self.state = state
        self.lastEventUnixNanoseconds = lastEventUnixNanoseconds
    }

    /// Nothing counted yet: the totals of a new database.
    public static let zero = DurableTotals(counters: [:], credit: 0, state: .locked, lastEventUnixNanoseconds: nil)

    /// The count of `kind` (0 for a kind never counted).
    public subscript(kind: String) -> Int { counters[kind] ?? 0 }

    /// The last recorded step's time as a `Date`.
    public var lastEventTime: Date? {
        lastEventUnixNanoseconds.map { Date(timeIntervalSince1970: Double($0) / 1e9) }
    }

    /// The money invariant over the whole life of the database: every coin is a passage, an
    /// expired credit, a coin taken out of service, credit voided by a restart, or credit still
    /// standing.
    public var moneyInvariantHolds: Bool {
        self["coins"] == self["passages"] + self["expiredCredits"] + self["coinsOutOfService"]
            + self[CountKind.creditsVoidedByRestart] + credit
    }
}
