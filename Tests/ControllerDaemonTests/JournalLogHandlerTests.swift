@testable import ControllerDaemon
import Foundation
import Logging
import Testing

/// Records to the journal in its native protocol, against a fake journal socket: a record's
/// message, priority, identifier, the `MESSAGE_ID` of its kind and the machine's state and
/// event as fields; the same record on standard error reads as before, without them.
@Suite("The journal's fields")
struct JournalLogHandlerTests {
    static func fields(_ datagram: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in datagram.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    @Test("a transition: PRIORITY, SYSLOG_IDENTIFIER, the kind's MESSAGE_ID, the state and event as fields")
    func transition() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try DatagramReceiver(path: directory.appendingPathComponent("socket").path)
        let factory = try #require(JournalLogHandler.factory(identifier: "turnstiled", socketPath: journal.path))
        let logger = Logger(label: "turnstiled", factory: factory)
        logger.info("locked --coin--> unlocked", metadata: JournalRecordKind.transition.metadata(state: "unlocked", event: "coin"))
        let fields = Self.fields(try #require(journal.next()))
        #expect(fields["MESSAGE"] == "locked --coin--> unlocked", "the journal's own fields stay out of the message")
        #expect(fields["PRIORITY"] == "6")
        #expect(fields["SYSLOG_IDENTIFIER"] == "turnstiled")
        #expect(fields["MESSAGE_ID"] == JournalRecordKind.transition.messageID)
        #expect(fields["CONTROLLER_STATE"] == "unlocked" && fields["CONTROLLER_EVENT"] == "coin")

        logger.warning("refused set jam on", metadata: JournalRecordKind.refusal.metadata())
        let refusal = Self.fields(try #require(journal.next()))
        #expect(refusal["PRIORITY"] == "4" && refusal["MESSAGE_ID"] == JournalRecordKind.refusal.messageID)
        #expect(refusal["CONTROLLER_STATE"] == nil)
        logger.notice("plain")
        #expect(Self.fields(try #require(journal.next()))["MESSAGE_ID"] == nil, "a record of no kind has no MESSAGE_ID")
    }

    @Test("every kind has its own MESSAGE_ID, 128 bits in hex, as journalctl takes them")
    func messageIDs() {
        let ids = JournalRecordKind.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }

    @Test("on standard error the same record reads as before: no journal fields in the line")
    func plainLine() {
        let line = PlainLogHandler.line(
            level: .info, message: "locked --coin--> unlocked",
            metadata: JournalRecordKind.transition.metadata(state: "unlocked", event: "coin"), journal: true)
        #expect(line == "<6>locked --coin--> unlocked\n")
    }

    @Test("a journal that cannot be reached: no handler (the daemon then writes standard error)")
    func unreachable() {
        #expect(JournalLogHandler.factory(identifier: "turnstiled", socketPath: "relative/path") == nil)
        #expect(JournalLogHandler.fieldName("state-2.x") == "STATE_2_X")
    }
}
