import Logging
import ServiceLifecycle

/// The daemon's signals, from the trap that took them since `main` began: SIGTERM and SIGINT
/// ask the event loop to stop (it then drives the fail mode and the group drains behind it);
/// SIGHUP calls `reload`; any other is logged and ignored. It runs until the group shuts down,
/// so a signal during the drain is logged, not lost; after that the trap still holds them, so no
/// signal ever ends the daemon by its default action.
public struct SignalService: Service {
    private let signals: AsyncStream<Int32>
    private let logger: Logger
    /// What stops the event loop (its inbox's stop request).
    private let stop: @Sendable () -> Void
    /// What SIGHUP does (reads the board file again); not called once stopping.
    private let reload: @Sendable () -> Void
    /// What the signals do, for the line that says one was ignored: "SIGTERM or SIGINT stops
    /// turnstiled, SIGHUP reloads its timings".
    private let usage: String

    public init(
        signals: AsyncStream<Int32>, logger: Logger, usage: String,
        stop: @escaping @Sendable () -> Void, reload: @escaping @Sendable () -> Void
    ) {
        self.signals = signals
        self.logger = logger
        self.usage = usage
        self.stop = stop
        self.reload = reload
    }

    public func run() async {
        var stopping = false
        for await signal in signals.cancelOnGracefulShutdown() {
            let name = SignalTrap.name(of: signal)
            switch SignalTrap.meaning(of: signal) {
            case .stop where stopping:
                logger.notice("\(name): already stopping")
            case .stop:
                stopping = true
                stop()
            case .reload where stopping:
                logger.notice("\(name): stopping; the board file is not read again")
            case .reload:
                reload()
            case .ignored:
                logger.notice("\(name) ignored: \(usage)")
            }
        }
    }
}
