import CMosquitto
import ControllerFSM

/// libmosquitto, opened at run time (dlopen) with every function the client uses bound and
/// checked, and initialised (`mosquitto_lib_init`). Opened once per file per process, and never
/// closed: `mosquitto_lib_init` is not thread-safe, so opening goes through one lock.
public final class MQTTLibrary: @unchecked Sendable {
    // Safety: `raw` points at function pointers written once, before `open` returns, and never
    // again; `file` and `version` are constants.

    /// libmosquitto's soname (1.x and 2.x share it; the version is checked after opening).
    public static let defaultFile = CMOSQUITTO_LIBRARY_FILE

    public let file: String
    /// "2.0.11".
    public let version: String
    let raw: OpaquePointer

    private init(file: String, version: String, raw: OpaquePointer) {
        self.file = file
        self.version = version
        self.raw = raw
    }

    private static let opened = Guarded<[String: MQTTLibrary]>([:])

    /// The library in `file`, opened the first time it is asked for.
    public static func open(_ file: String = defaultFile) throws(MQTTError) -> MQTTLibrary {
        try opened.withLock { libraries throws(MQTTError) -> MQTTLibrary in
            if let library = libraries[file] { return library }
            var reason = [CChar](repeating: 0, count: Int(CMOSQUITTO_REASON_SIZE))
            guard let raw = cmosquitto_library_open(file, &reason, reason.count) else {
                let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                throw .libraryUnavailable(file: file, reason: text)
            }
            var major: Int32 = 0
            var minor: Int32 = 0
            var revision: Int32 = 0
            _ = cmosquitto_lib_version(raw, &major, &minor, &revision)
            let version = "\(major).\(minor).\(revision)"
            // The library stays open (and initialised) even when refused: it cannot be closed
            // safely once lib_init ran, and it is small.
            guard major >= MQTTLimits.minLibraryMajorVersion else { throw .libraryTooOld(file: file, version: version) }
            let library = MQTTLibrary(file: file, version: version, raw: raw)
            libraries[file] = library
            return library
        }
    }

    /// libmosquitto's words for a result code, with errno's for CMOSQUITTO_ERR_ERRNO, without a
    /// final full stop.
    func describe(_ rc: Int32, errorNumber: Int32 = 0) -> String {
        let text: String = if rc == CMOSQUITTO_ERR_ERRNO {
            errorNumber != 0 ? SystemErrno.describe(errorNumber) : "a system call failed"
        } else {
            String(cString: cmosquitto_strerror(raw, rc))
        }
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// libmosquitto's words for a CONNACK refusal, without a final full stop.
    func describeRefusal(_ code: Int32) -> String {
        let text = String(cString: cmosquitto_connack_string(raw, code))
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
