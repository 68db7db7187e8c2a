#if canImport(Glibc)
import Glibc
#endif

/// Where a Unix datagram goes: a path, or `@name` in the abstract namespace (as systemd names its
/// sockets in `$NOTIFY_SOCKET`). Shared by the sd_notify sender and the journal's.
struct UnixDatagramAddress {
    let address: sockaddr_un
    let length: socklen_t

    /// nil for a path that is empty, too long for a socket address, or neither absolute nor `@`.
    init?(_ path: String) {
        var address = sockaddr_un()
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path),
              bytes[0] == UInt8(ascii: "/") || bytes[0] == UInt8(ascii: "@") else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            // The abstract namespace: a leading NUL instead of '@'.
            if bytes[0] == UInt8(ascii: "@") { raw[0] = 0 }
        }
        self.address = address
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    }
}
