#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Hummingbird

/// One HTTP response as the tests read it.
struct LoopbackResponse: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer
}

/// Why a request to the server under test failed before a response was read.
struct LoopbackClientError: Error, CustomStringConvertible {
    let description: String
}

/// A plain HTTP/1.1 client over a loopback socket, one connection per request, for the status
/// server under test. HummingbirdTesting would do, but its product brings AsyncHTTPClient, and
/// with it swift-nio-ssl's BoringSSL, swift-crypto and HTTP/2: a few minutes of compiling in each
/// of CI's debug and sanitizer builds for the few requests these tests send. The requests are
/// real ones through the server's listener, so what is tested is what a browser gets.
struct LoopbackClient: Sendable {
    /// A response not complete within this long fails the test instead of hanging it. A page
    /// from a server in this process takes milliseconds; CI runs the AddressSanitizer and
    /// ThreadSanitizer test runs at once on 2 cores (5–20 times slower): 30 s is far past both,
    /// and a response that comes returns at once.
    static let timeoutSeconds = 30
    /// More than any page or metrics body the tests fetch; a larger one is a failure.
    static let maxResponseBytes = 4 << 20
    static let readChunkBytes = 16 << 10

    let port: Int

    /// Sends `method uri` and hands the response to `check`.
    func execute<Value>(
        uri: String, method: HTTPRequest.Method, _ check: (LoopbackResponse) async throws -> Value
    ) async throws -> Value {
        try await check(try await request(method: method, uri: uri))
    }

    func get(_ uri: String) async throws -> LoopbackResponse {
        try await request(method: .get, uri: uri)
    }

    /// The socket blocks, so it runs on a thread of its own: a queue of its own overcommits.
    /// On Swift's cooperative threads (Dispatch's global queue on Linux, as wide as the machine
    /// has cores) it would starve the server's handlers, which run there too.
    ///
    /// The outcome comes back through the continuation, and nothing of it is read before the
    /// queue has been waited for (`queue.sync {}`). The continuation alone is a hand-over
    /// ThreadSanitizer cannot see when `send` finishes before this task reaches its `await`:
    /// Swift's runtime then goes on inline, on an atomic load in code that is not instrumented,
    /// without the acquire it tells the sanitizer about on the other path (swiftlang/swift#57803),
    /// and the response's bytes, written on the queue's thread, were reported as a race where
    /// a test read them (MetricsRouteTests.recordedLatenciesLandInTheirBuckets).
    /// `dispatch_sync` on this serial queue is an edge the sanitizer models: everything the
    /// request's block did, to its end, happens before this task goes on. By then the block has
    /// only to return, so the wait is short. An error is a `Result` too, so that it is also read
    /// after the wait.
    private func request(method: HTTPRequest.Method, uri: String) async throws -> LoopbackResponse {
        let queue = DispatchQueue(label: "LoopbackClient")
        let outcome: Result<LoopbackResponse, any Error> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { try send(method: method, uri: uri) })
            }
        }
        queue.sync {}
        return try outcome.get()
    }

    private func send(method: HTTPRequest.Method, uri: String) throws -> LoopbackResponse {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LoopbackClientError(description: "socket: errno \(errno)") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: Self.timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw LoopbackClientError(description: "connect to 127.0.0.1:\(port): errno \(errno)") }

        let request = Array("\(method.rawValue) \(uri) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard written > 0 else { throw LoopbackClientError(description: "write: errno \(errno)") }
            sent += written
        }

        // Read until the response is whole, by its own framing: a server may keep the
        // connection open after it, `Connection: close` or not, until its idle timeout.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        while true {
            if let response = try Self.parse(received, method: method) { return response }
            let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            guard count > 0 else {
                throw LoopbackClientError(description: count == 0
                    ? "the server closed the connection after \(received.count) bytes, before the response was whole"
                    : "read: errno \(errno) after \(received.count) bytes")
            }
            received.append(contentsOf: chunk[..<count])
            guard received.count <= Self.maxResponseBytes else {
                throw LoopbackClientError(description: "response larger than \(Self.maxResponseBytes) bytes")
            }
        }
    }

    /// The response in `bytes`, or nil while it is not whole yet.
    static func parse(_ bytes: [UInt8], method: HTTPRequest.Method) throws -> LoopbackResponse? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.firstRange(of: separator) else { return nil }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let code = Int(statusLine[1]) else {
            throw LoopbackClientError(description: "not an HTTP status line: \(head.prefix(80))")
        }
        var headers = HTTPFields()
        for line in lines {
            guard let colon = line.firstIndex(of: ":"),
                  let name = HTTPFields.Element.Name(String(line[..<colon]))
            else { throw LoopbackClientError(description: "malformed header line: \(line)") }
            headers.append(HTTPFields.Element(name: name, value: line[line.index(after: colon)...].trimmingPrefix(" ").description))
        }
        let status = HTTPResponse.Status(code: code)
        let rest = Array(bytes[headEnd.upperBound...])
        let body: [UInt8]
        if method == .head || status == .noContent || status == .notModified {
            body = []
        } else if headers[.transferEncoding]?.lowercased() == "chunked" {
            guard let whole = try dechunk(rest) else { return nil }
            body = whole
        } else if let length = headers[.contentLength].flatMap(Int.init) {
            guard rest.count >= length else { return nil }
            body = Array(rest[..<length])
        } else {
            throw LoopbackClientError(description: "a response with neither Content-Length nor chunked framing")
        }
        return LoopbackResponse(status: status, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// The body of a chunked response (RFC 9112, 7.1; no extensions or trailers), or nil while
    /// its last chunk has not arrived.
    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8]? {
        let lineEnd: [UInt8] = Array("\r\n".utf8)
        var body: [UInt8] = []
        var rest = bytes[...]
        while true {
            guard let end = rest.firstRange(of: lineEnd) else { return nil }
            guard let size = Int(String(decoding: rest[..<end.lowerBound], as: UTF8.self), radix: 16), size >= 0 else {
                throw LoopbackClientError(description: "malformed chunk size line")
            }
            guard rest.endIndex - end.upperBound >= size + lineEnd.count else { return nil }
            if size == 0 { return body }
            body.append(contentsOf: rest[end.upperBound..<end.upperBound + size])
            rest = rest[(end.upperBound + size + lineEnd.count)...]
        }
    }
}
