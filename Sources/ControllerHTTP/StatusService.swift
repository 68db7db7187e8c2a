import Logging
import ControllerDaemon
import ServiceLifecycle

/// The status server as a service that cannot take the controller down with it: a port that
/// is taken is an error in the log and in status, and the controller goes on working (the
/// service then waits for the group's shutdown instead of ending it).
public struct StatusService: Service {
    private let server: StatusServer
    private let logger: Logger
    private let readiness: ReadinessGate?

    /// The name under which the server holds readiness back until it listens.
    public static let readinessName = "the status server"

    /// - Parameter readiness: told once the server listens (or has failed to).
    public init(server: StatusServer, logger: Logger, readiness: ReadinessGate? = nil) {
        self.server = server
        self.logger = logger
        self.readiness = readiness
    }

    public func run() async {
        do {
            try await server.run(onListening: { [readiness] _ in readiness?.serviceIsUp(Self.readinessName) })
        } catch {
            readiness?.serviceIsUp(Self.readinessName)
            logger.error("the status page is not served: \(error); the controller goes on without it")
            try? await gracefulShutdown()
        }
    }
}
