import ControllerHost
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the broker is: `mqtt://HOST[:PORT]` (plain TCP, port 1883 by default) or
/// `mqtts://HOST[:PORT]` (TLS, 8883). HOST is a DNS name, an IPv4 address or an IPv6 address in
/// brackets. Nothing else is accepted: no user name or password in the URL (the user name is a
/// setting and the password lives in a file, so neither ends up in a log line or `ps`), no path,
/// query or fragment (MQTT has no use for them).
///
/// Plain `mqtt://` sends the password and every message readable by anyone on the way, so it is
/// refused for any host but this machine's loopback (127.0.0.0/8, ::1, `localhost`) unless the
/// caller passes `allowPlaintextToRemoteHost` (a test network, a broker behind a VPN).
public struct MQTTBrokerURL: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Scheme: String, Sendable {
        case mqtt
        case mqtts
    }

    public let scheme: Scheme
    /// The host as written, lower-cased, without the brackets of an IPv6 address.
    public let host: String
    public let port: UInt16

    public var usesTLS: Bool { scheme == .mqtts }
    public var isLoopback: Bool { Self.isLoopback(host: host) }

    /// The URL in its canonical form, with the port written out: how errors name the broker.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(shownHost):\(port)"
    }

    /// Parses and checks `text`; every refusal says what was wrong and how to write it.
    public static func parse(_ text: String, allowPlaintextToRemoteHost: Bool = false) throws(MQTTError) -> MQTTBrokerURL {
        let form = "write it as mqtts://HOST:PORT (or mqtt://HOST:PORT for a broker on this machine)"
        func refuse(_ problem: String, url: String = text) -> MQTTError {
            .invalidBrokerURL(url: url, problem: problem)
        }
        guard !text.isEmpty else { throw refuse("is empty; \(form)") }
        guard !text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) else {
            throw refuse("contains a space or a control character; \(form)")
        }
        guard let separator = text.firstRange(of: "://") else { throw refuse("has no scheme; \(form)") }
        let schemeText = text[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else {
            let hint = switch schemeText {
            case "tcp": " (tcp:// is mqtt:// here)"
            case "ssl", "tls": " (\(schemeText):// is mqtts:// here)"
            case "ws", "wss": " (MQTT over WebSockets is not supported)"
            default: ""
            }
            throw refuse("the scheme '\(schemeText.shown)' is not MQTT's\(hint); \(form)")
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            // The URL may hold a password: the error shows it without what precedes the '@'.
            let redacted = "\(schemeText.shown)://…@\(rest[rest.index(after: at)...].shown)"
            throw refuse(
                "has a user name or password in it; give the user name in the configuration and the password "
                    + "in a password file, and \(form)",
                url: redacted
            )
        }
        let trailer = rest[authorityEnd...]
        if let first = trailer.first {
            let what = switch first {
            case "/": "a path ('\(trailer.shown)')"
            case "?": "a query ('\(trailer.shown)')"
            default: "a fragment ('\(trailer.shown)')"
            }
            throw refuse("has \(what), which an MQTT broker's URL does not have; \(form)")
        }

        var hostText: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else {
                throw refuse("has '[' without ']' around its IPv6 address; write it as mqtts://[::1]:8883")
            }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let afterHost = authority[authority.index(after: close)...]
            if !afterHost.isEmpty {
                guard afterHost.first == ":" else {
                    throw refuse("has '\(afterHost.shown)' after the IPv6 address; write it as mqtts://[::1]:8883")
                }
                portText = afterHost.dropFirst()
            }
            guard isIPv6(String(hostText)) else {
                throw refuse("'\(hostText.shown)' is not an IPv6 address")
            }
        } else {
            let colons = authority.filter { $0 == ":" }.count
            if colons > 1 {
                throw refuse("an IPv6 address must be in brackets, as in mqtts://[::1]:8883")
            }
            if let colon = authority.firstIndex(of: ":") {
                hostText = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                hostText = authority
            }
            guard !hostText.isEmpty else { throw refuse("has no host; \(form)") }
            if let problem = hostNameProblem(String(hostText)) { throw refuse(problem) }
        }

        var port = scheme == .mqtts ? MQTTLimits.defaultTLSPort : MQTTLimits.defaultPlainPort
        if let portText {
            guard !portText.isEmpty else { throw refuse("has ':' but no port after it; \(form)") }
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                (1...Int(UInt16.max)).contains(value)
            else {
                throw refuse("the port '\(portText.shown)' is not a number from 1 to 65535")
            }
            port = UInt16(value)
        }

        let url = MQTTBrokerURL(scheme: scheme, host: hostText.lowercased(), port: port)
        if scheme == .mqtt && !url.isLoopback && !allowPlaintextToRemoteHost {
            throw .plaintextToRemoteHost(url: text, host: url.host)
        }
        return url
    }

    /// Whether `host` is this machine's loopback: an IPv4 address in 127.0.0.0/8, the IPv6
    /// address ::1, or the name `localhost`. Only the name itself: a name that merely resolves to
    /// 127.0.0.1 today is not trusted with a plain connection.
    public static func isLoopback(host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "localhost." { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, lowered, &v4) == 1 {
            // s_addr is in network order: the first octet is the lowest byte in memory.
            return withUnsafeBytes(of: &v4) { $0[0] } == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, lowered, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }

    private static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// Why `host` is neither an IPv4 address nor a DNS name, or nil.
    private static func hostNameProblem(_ host: String) -> String? {
        if host.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            var address = in_addr()
            return inet_pton(AF_INET, host, &address) == 1 ? nil : "'\(host.shown)' is not an IPv4 address"
        }
        guard host.utf8.count <= MQTTLimits.maxHostBytes else {
            return "the host name is longer than \(MQTTLimits.maxHostBytes) bytes"
        }
        let name = host.hasSuffix(".") ? host.dropLast() : Substring(host)
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            let valid = !label.isEmpty && label.utf8.count <= MQTTLimits.maxHostLabelBytes && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            if !valid {
                return "'\(host.shown)' is not a host name (letters, digits and '-' in dot-separated labels) "
                    + "nor an IP address"
            }
        }
        return nil
    }
}
