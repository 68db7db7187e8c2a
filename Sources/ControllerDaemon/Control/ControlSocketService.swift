import ServiceLifecycle

/// The control socket as a service of the daemon's group: the server answers on its own thread
/// from the moment it is made, at the end of the start-up; the group's drain closes it once the
/// counts are durable and before the lines are released, so a follower sees every transition of
/// the run.
public struct ControlSocketService: Service {
    private let server: ControlServer

    public init(server: ControlServer) {
        self.server = server
    }

    public func run() async {
        try? await gracefulShutdown()
        server.stop()
    }
}
