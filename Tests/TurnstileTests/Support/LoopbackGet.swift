import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 GET (`Connection: close`, so the server ends the response by closing) to a loopback port, for the tests that start a server as a process (`fleet
/// --http`): the status and body, or nil when nothing answered.
enum LoopbackGet {
    /// More than any page or overview the tests fetch.
    static let maxResponseBytes = 4 << 20

    static func get(port: Int, path: String, timeoutSeconds: Int = 10) -> (status: Int, body: String)? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while response.count <= maxResponseBytes {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response += chunk[..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return (status, String(text[split.upperBound...]))
    }
}
