/// A count the application keeps in its context, named once: the store's ledger kind, the
/// `/status` and `/metrics` name, the `stats` line, the scenario's `expect counter NAME` and the
/// summary's field all take this name.
public struct CounterDeclaration<App: ControllerApplication>: Sendable {
    public let name: String
    /// Reads the count from the context. A closure, not a key path: it runs after every step,
    /// and applying a key path allocates.
    public let value: @Sendable (App.Context) -> Int
    /// One line for `/metrics`' help and the documentation.
    public let summary: String

    public init(_ name: String, summary: String = "", _ value: @escaping @Sendable (App.Context) -> Int) {
        self.name = name
        self.value = value
        self.summary = summary
    }
}

/// A value that goes up and down (the turnstile's credit): shown beside the counters, never
/// summed. The store keeps its last value in each run, a count standing: 0 or more.
public struct GaugeDeclaration<App: ControllerApplication>: Sendable {
    public let name: String
    /// Reads the value from the context (a closure, as ``CounterDeclaration/value``).
    public let value: @Sendable (App.Context) -> Int
    /// When a run ends without the gauge back at zero (killed, power lost), the store books its
    /// last value under this counted kind as the next run begins (the turnstile's credit that
    /// a restart voids: `creditsVoidedByRestart`); `nil` books nothing.
    public let voidedByRestart: String?
    public let summary: String

    public init(_ name: String, voidedByRestart: String? = nil, summary: String = "", _ value: @escaping @Sendable (App.Context) -> Int) {
        self.name = name
        self.value = value
        self.voidedByRestart = voidedByRestart
        self.summary = summary
    }
}
