import ControllerDaemon
import Logging
import Turnstile

extension StatusServer {
    /// The turnstile's server, its page drawing `TurnstileMachine.table`: what `turnstiled run`
    /// and `status-fixture` call until they pass the table they run as `diagram:`. The only
    /// place in this target that names the turnstile's machine; it goes once they do.
    public init(
        host: String = StatusServer.defaultHost,
        port: Int = StatusServer.defaultPort,
        metrics: TurnstileMetrics,
        limits: StatusServerLimits = .standard,
        logger: Logger = Logger(label: "turnstiled.http"),
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
        snapshot: @escaping @Sendable () -> DaemonSnapshot
    ) {
        self.init(
            host: host, port: port, layout: Self.turnstileLayout, metrics: metrics, limits: limits,
            logger: logger, onListening: onListening, snapshot: snapshot)
    }

    /// Laid out once however many servers are made (the tests make one per test).
    static let turnstileLayout = DiagramLayout(StateDiagram(TurnstileMachine.table))
}
