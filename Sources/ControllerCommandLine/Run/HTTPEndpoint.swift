import ArgumentParser
import ControllerHTTP

/// `--http ADDRESS:PORT`: where the status page, `/status`, `/metrics` and `/healthz` listen.
struct HTTPEndpoint: ExpressibleByArgument, Sendable {
    var host: String
    var port: Int

    /// The ports `--http` takes (TCP's).
    static let ports = 0...65_535

    /// `127.0.0.1:9180`, `[::1]:9180`, `0.0.0.0:80`; port 0 takes any free port (the log says which).
    init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), let port = Int(argument[argument.index(after: colon)...]),
              Self.ports.contains(port) else { return nil }
        var host = String(argument[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }

    static var standard: HTTPEndpoint { HTTPEndpoint(argument: hostPort(StatusServer.defaultHost, StatusServer.defaultPort))! }
}
