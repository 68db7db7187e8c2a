import ControllerFSM
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// swift-log records sent to systemd's journal in its native protocol: one datagram of fields
/// per record to `/run/systemd/journal/socket` — `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`, a
/// stable `MESSAGE_ID` for each kind of record (``JournalRecordKind``: `journalctl
/// MESSAGE_ID=…` finds every transition, fault, refusal, reload or store outage of any
/// version), and the machine's state and event as fields of their own (`CONTROLLER_STATE`,
/// `CONTROLLER_EVENT`) for `journalctl CONTROLLER_STATE=broken`.
///
/// A record tells its kind and fields with metadata under ``JournalField`` keys, which the
/// plain handler (standard error) leaves out, so a line there reads as before. A record the
/// journal does not take (its socket gone, its queue full) goes to standard error instead.
public struct JournalLogHandler: LogHandler {
    public static let socketPath = "/run/systemd/journal/socket"
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let identifier: String
    private let journal: JournalSocket
    private var fallback: PlainLogHandler

    /// The handlers of one process: `LoggingSystem.bootstrap(JournalLogHandler.factory(identifier: "turnstiled"))`.
    /// nil when the journal's socket cannot be reached (`socketPath` for tests).
    public static func factory(identifier: String, socketPath: String = socketPath) -> (@Sendable (String) -> JournalLogHandler)? {
        guard let journal = JournalSocket(path: socketPath) else { return nil }
        let plain = PlainLogHandler.factory(journal: true)
        return { label in JournalLogHandler(identifier: identifier, journal: journal, fallback: plain(label)) }
    }

    init(identifier: String, journal: JournalSocket, fallback: PlainLogHandler) {
        self.identifier = identifier
        self.journal = journal
        self.fallback = fallback
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set {
            metadata[key] = newValue
            fallback[metadataKey: key] = newValue
        }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let datagram = Self.datagram(identifier: identifier, level: event.level, message: event.message, metadata: merged)
        if !journal.send(datagram) { fallback.log(event: event) }
    }

    /// The record in the journal's native format: `NAME=value` lines; a value holding a line
    /// break as the name, a line break, its length (64-bit little-endian) and its bytes.
    static func datagram(identifier: String, level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata) -> [UInt8] {
        var fields: [(String, String)] = [
            ("MESSAGE", PlainLogHandler.message(message, metadata: metadata)),
            ("PRIORITY", String(PlainLogHandler.priority(of: level))),
            ("SYSLOG_IDENTIFIER", identifier),
        ]
        if case .string(let kind)? = metadata[JournalField.kind], let known = JournalRecordKind(rawValue: kind) {
            fields.append(("MESSAGE_ID", known.messageID))
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where key.hasPrefix(JournalField.prefix) && key != JournalField.kind {
            fields.append(("CONTROLLER_" + fieldName(String(key.dropFirst(JournalField.prefix.count))), "\(value)".shownLine))
        }
        var bytes: [UInt8] = []
        for (name, value) in fields {
            bytes += Array(name.utf8)
            let valueBytes = Array(value.utf8)
            if valueBytes.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(valueBytes.count).littleEndian) { bytes += Array($0) }
                bytes += valueBytes
            } else {
                bytes.append(UInt8(ascii: "="))
                bytes += valueBytes
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// A journal field name: uppercase letters, digits and `_` (`state` → `STATE`).
    static func fieldName(_ key: String) -> String {
        String(key.unicodeScalars.map { scalar -> Character in
            if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                return Character(String(scalar).uppercased())
            }
            return "_"
        })
    }
}

/// The metadata keys a record tells the journal with (the plain handler leaves them out).
public enum JournalField {
    static let prefix = "journal."
    /// The record's kind: a ``JournalRecordKind`` raw value.
    public static let kind = "journal.kind"
    /// The machine's state after the record's event.
    public static let state = "journal.state"
    /// The event of the record.
    public static let event = "journal.event"
}

/// The kinds of record the journal can find by `MESSAGE_ID`. The ids are fixed for good: a
/// query written against one version finds the same records in the next.
public enum JournalRecordKind: String, CaseIterable, Sendable {
    case transition, fault, refusal, reload
    case storeOutage = "store-outage"

    public var messageID: String {
        switch self {
        case .transition: "5f0a3c1e8b7d4e2a9c6b1d0e7f3a2b41"
        case .fault: "c2e94b7a1d3f4c8e8a5b2d6f9e0c1a72"
        case .refusal: "8d1b6e4f2a9c4b3e9f7a0c5d2e8b6a13"
        case .reload: "a4f7c2d9e1b34a6c8e0d5b2f7a9c3e64"
        case .storeOutage: "3b8e1f6a9c2d4e7b8a1c0f5e2d9b7c35"
        }
    }

    /// Metadata naming this kind, with the state and event when there are ones.
    public func metadata(state: String? = nil, event: String? = nil) -> Logger.Metadata {
        var metadata: Logger.Metadata = [JournalField.kind: .string(rawValue)]
        if let state { metadata[JournalField.state] = .string(state) }
        if let event { metadata[JournalField.event] = .string(event) }
        return metadata
    }
}

/// The journal's socket: datagrams, never waiting.
final class JournalSocket: @unchecked Sendable {
    // Safety: set in init, only read after; sendto on one socket from several threads is safe.
    private let socket: Int32
    private let destination: UnixDatagramAddress
    private let place: Syscalls.Place

    init?(path: String) {
        guard let destination = UnixDatagramAddress(path) else { return nil }
        place = .path(path)
        let socket = Syscalls.unixDatagramSocket(at: place)
        guard socket >= 0 else { return nil }
        self.socket = socket
        self.destination = destination
    }

    deinit { Syscalls.close(socket) }

    /// Whether the journal took the datagram.
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: destination.address) { Syscalls.sendDatagram(socket, raw, to: $0, length: destination.length, at: place) } == raw.count
        }
    }
}
