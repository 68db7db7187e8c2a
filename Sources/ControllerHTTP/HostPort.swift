/// `host:port` as a URL's authority and as an operator types it back to `--http`: an IPv6
/// literal in brackets (`[::1]:9180`), since its own colons would otherwise run into the port's.
/// The one place an address and a port are joined.
public func hostPort(_ host: String, _ port: Int) -> String {
    let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    return bare.contains(":") ? "[\(bare)]:\(port)" : "\(bare):\(port)"
}
