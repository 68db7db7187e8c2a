import Logging
import ServiceLifecycle

/// The status server as a service that cannot take the controller down with it: a port that
/// is taken is an error in the log and in status, and the controller goes on working (the
/// service then waits for the group's shutdown instead of ending it).
public struct StatusService: Service {
    private let server: StatusServer
    private let logger: Logger

    public init(server: StatusServer, logger: Logger) {
        self.server = server
        self.logger = logger
    }

    public func run() async {
        do {
            try await server.run()
        } catch {
            logger.error("the status page is not served: \(error); the controller goes on without it")
            try? await gracefulShutdown()
        }
    }
}
