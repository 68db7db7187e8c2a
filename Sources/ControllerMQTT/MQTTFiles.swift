import ControllerHost

/// Reading the password file, and checking the TLS files before libmosquitto does: it only says
/// "A TLS error occurred" at each connection attempt, where these name the file and what is wrong.
enum MQTTFiles {
    /// The bytes of a regular file of at most `limit` bytes, or why not ("cannot open: No
    /// such file or directory", "is not a regular file", "is larger than N bytes").
    static func contents(of path: String, limit: Int) -> Result<[UInt8], FileProblem> {
        do {
            return .success(try TextFile.bytes(path: path, limit: limit, regularFileOnly: true))
        } catch {
            return .failure(FileProblem(error.reason))
        }
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
