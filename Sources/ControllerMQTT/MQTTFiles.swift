import ControllerFSM

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading the password file, and checking the TLS files before libmosquitto does: it only says
/// "A TLS error occurred" at each connection attempt, where these name the file and what is wrong.
enum MQTTFiles {
    /// The bytes of a regular file of at most `limit` bytes, or why not ("cannot be read: No
    /// such file or directory", "is a directory", "is larger than N bytes").
    static func contents(of path: String, limit: Int) -> Result<[UInt8], FileProblem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .failure(FileProblem("cannot be read: \(SystemErrno.describe(SystemErrno.current))"))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return .failure(FileProblem("cannot be read: \(SystemErrno.describe(SystemErrno.current))"))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failure(FileProblem("is not a regular file")) }
        guard Int(status.st_size) <= limit else { return .failure(FileProblem("is larger than \(limit) bytes")) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, limit + 1 - count) }
            if got < 0 {
                if SystemErrno.current == EINTR { continue }
                return .failure(FileProblem("cannot be read: \(SystemErrno.describe(SystemErrno.current))"))
            }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { return .failure(FileProblem("is larger than \(limit) bytes")) }
        return .success(Array(bytes.prefix(count)))
    }

    struct FileProblem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The password: the file's first line, without its line ending.
    static func password(from path: String) throws(MQTTError) -> String {
        let bytes: [UInt8]
        switch contents(of: path, limit: MQTTLimits.maxPasswordBytes + 2) {
        case .success(let read): bytes = read
        case .failure(let problem): throw .passwordFile(path: path, problem: problem.text)
        }
        var line = bytes.prefix { $0 != 0x0A }
        let rest = bytes.dropFirst(line.count + 1)
        if line.last == 0x0D { line = line.dropLast() }
        guard !line.isEmpty else { throw .passwordFile(path: path, problem: "is empty: the password is its first line") }
        guard rest.allSatisfy({ $0 == 0x0A || $0 == 0x0D }) else {
            throw .passwordFile(path: path, problem: "has more than one line: the password is the file's only line")
        }
        guard line.count <= MQTTLimits.maxPasswordBytes else {
            throw .passwordFile(path: path, problem: "holds a password longer than \(MQTTLimits.maxPasswordBytes) bytes")
        }
        guard !line.contains(0) else { throw .passwordFile(path: path, problem: "contains a NUL byte") }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw .passwordFile(path: path, problem: "is not UTF-8 text")
        }
        return text
    }

    enum PEMKind {
        case certificate
        case privateKey
    }

    /// Checks that `path` can be read and holds what `kind` says, in PEM form.
    static func checkPEM(_ path: String, role: String, kind: PEMKind) throws(MQTTError) {
        let bytes: [UInt8]
        switch contents(of: path, limit: MQTTLimits.maxPEMFileBytes) {
        case .success(let read): bytes = read
        case .failure(let problem): throw .tlsFile(role: role, path: path, problem: problem.text)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        switch kind {
        case .certificate:
            guard text.contains("-----BEGIN CERTIFICATE-----") else {
                throw .tlsFile(role: role, path: path, problem: "holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
        case .privateKey:
            if text.contains("ENCRYPTED PRIVATE KEY") || text.contains("Proc-Type: 4,ENCRYPTED") {
                throw .tlsFile(
                    role: role, path: path,
                    problem: "is encrypted, and a daemon has nobody to ask for its password: "
                        + "store it decrypted, readable only by the daemon's user (openssl pkey -in KEY -out PLAIN)"
                )
            }
            guard text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----") else {
                throw .tlsFile(role: role, path: path, problem: "holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)")
            }
        }
    }
}
