import ControllerHTTP

/// Where the status page, `/status`, `/metrics` and `/healthz` listen (`--http ADDRESS:PORT`).
public struct HTTPEndpoint: Sendable, Equatable {
    public var host: String
    public var port: Int

    /// The ports an endpoint takes (TCP's); 0 takes any free port (the log says which).
    public static let ports = 0...65_535

    /// `host` and `port`; nil when the port is not a TCP port or the host is empty.
    public init?(host: String, port: Int) {
        guard Self.ports.contains(port), !host.isEmpty else { return nil }
        self.host = host
        self.port = port
    }

    /// `127.0.0.1:9180`, `[::1]:9180`, `0.0.0.0:80`; nil for anything else.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(host: host, port: port)
    }

    /// The daemon's default: the loopback address and the status page's port.
    public static var standard: HTTPEndpoint { HTTPEndpoint(host: StatusServer.defaultHost, port: StatusServer.defaultPort)! }
}
