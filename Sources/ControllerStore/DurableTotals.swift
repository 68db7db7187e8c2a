#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost

/// What the store holds as committed: every count since the database was created, and the last
/// state and gauges recorded. A daemon reports these, never the controller's live counters, so
/// it never reports a count a crash could take back.
public struct DurableTotals<App: ControllerApplication>: Sendable, Equatable {
    /// Every kind in `CountStore.kinds` (zero when nothing of it happened), summed over all
    /// sessions.
    public var counters: [String: Int]
    /// Every gauge after the last recorded step of the current (or, read from a file, the
    /// latest) session.
    public var gauges: [String: Int]
    /// The state after that step; the machine's initial state before a session recorded
    /// anything.
    public var state: App.State
    /// Every innermost state active after that step, one per active region (`state` alone
    /// without parallel regions), in the order of the state enum. Kept while the store is open;
    /// read from a file, `state` alone (the file keeps the first region's).
    public var activeStates: [App.State]
    /// When the last recorded step happened (wall clock, nanoseconds since 1970 UTC), or `nil` if
    /// no session recorded one.
    public var lastEventUnixNanoseconds: Int64?

    public init(
        counters: [String: Int], gauges: [String: Int], state: App.State, activeStates: [App.State]? = nil, lastEventUnixNanoseconds: Int64?
    ) {
        let declaration = StoreDeclaration<App>()
        self.counters = declaration.zeroCounts.merging(counters) { $1 }
        self.gauges = Dictionary(uniqueKeysWithValues: declaration.gauges.map { ($0, 0) }).merging(gauges) { $1 }
        self.state = state
        self.activeStates = activeStates ?? [state]
        self.lastEventUnixNanoseconds = lastEventUnixNanoseconds
    }

    /// Nothing counted yet: the totals of a new database.
    public static var zero: Self {
        Self(counters: [:], gauges: [:], state: App.table.startState, activeStates: startStates, lastEventUnixNanoseconds: nil)
    }

    /// Every region's start state (``activeStates`` before the first step), in the order of the
    /// state enum.
    static var startStates: [App.State] { App.table.startStates.sorted { $0.rawValue < $1.rawValue } }

    /// Every active state, the innermost ones and the superstates around them, in the order of
    /// the state enum: what the site's state message lists.
    public var configuration: [App.State] {
        var active = Set<Int>()
        for state in activeStates {
            var walker: App.State? = state
            while let current = walker, active.insert(current.rawValue).inserted { walker = App.table.parent(of: current) }
        }
        return App.State.allCases.filter { active.contains($0.rawValue) }
    }

    /// The count of `kind` (0 for a kind never counted).
    public subscript(kind: String) -> Int { counters[kind] ?? 0 }

    /// The gauge called `name` (0 for one never recorded).
    public func gauge(_ name: String) -> Int { gauges[name] ?? 0 }

    /// The last recorded step's time as a `Date`.
    public var lastEventTime: Date? {
        lastEventUnixNanoseconds.map { Date(timeIntervalSince1970: Double($0) / 1e9) }
    }

    /// Whether `invariant` holds over these totals and gauges.
    public func holds(_ invariant: DurableInvariant) -> Bool {
        invariant.holds { name in counters[name] ?? gauges[name] ?? 0 }
    }

    /// Whether every one of the application's ``ControllerApplication/durableInvariants``
    /// holds (the turnstile's money: every coin is a passage, an expired credit, a coin taken
    /// out of service, credit voided by a restart, or credit still standing).
    public var invariantsHold: Bool { App.durableInvariants.allSatisfy(holds) }
}
