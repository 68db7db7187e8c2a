import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore

/// The events as a consumer (the MQTT publisher) reads them: a sequence per event in the
/// commit's transaction, the state after each step, and a delivery mark per consumer.
@Suite("CountStore: the outbox")
struct OutboxTests {
    @Test("each event has the next sequence and the states before and after its step; a new consumer starts at the newest")
    func sequencesAndStates() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_000))
        var tape = LedgerTape()
        tape.coin()
        tape.push()
        try store.append(tape.take())

        let mark = try store.deliveryMark(of: "site")
        #expect(mark == DeliveryMark(delivered: 2, newest: 2), "what was counted before the consumer existed is not its")
        tape.coin()
        tape.emergency(true)
        try store.append(tape.take())
        let events = try store.events(after: mark.delivered, limit: 10)
        #expect(events.map(\.sequence) == [3, 4, 5])
        // The emergency voided the credit the coin bought (two kinds in one step).
        #expect(events.map(\.kind) == ["coins", "expiredCredits", "emergencyOn"])
        #expect(events.map(\.before) == ["locked", "unlocked", "unlocked"])
        #expect(events.map(\.after) == ["unlocked", "emergency", "emergency"])
        #expect(events.allSatisfy { $0.session == 1 && $0.amount == 1 && $0.unixNanoseconds > 1_700_000_000_000_000_000 })
        #expect(try store.events(after: 3, limit: 1).map(\.sequence) == [4], "the limit holds")
        #expect(try store.eventCount(after: mark.delivered) == 3)
    }

    @Test("a delivery mark survives a reopen, never moves back, and is each consumer's own")
    func marks() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file()
        var store = try TurnstileStore.open(path: path)
        try store.beginTestSession(at: Date(timeIntervalSince1970: 1_700_000_000))
        _ = try store.deliveryMark(of: "a")
        var tape = LedgerTape()
        for _ in 0..<5 { tape.coin(); tape.push() }
        try store.append(tape.take())
        try store.markDelivered(upTo: 7, consumer: "a")
        try store.markDelivered(upTo: 4, consumer: "a")
        try store.close()
        store = try TurnstileStore.open(path: path)
        #expect(try store.deliveryMark(of: "a") == DeliveryMark(delivered: 7, newest: 10))
        #expect(try store.deliveryMark(of: "b") == DeliveryMark(delivered: 10, newest: 10))
        #expect(try store.eventCount(after: 7) == 3)
    }

    @Test("a mark the file holds as anything but an event id is refused with the table, row and value")
    func damagedMark() throws {
        let scratch = try ScratchDirectory()
        let store = try TurnstileStore.open(path: scratch.file())
        try store.database.write { db in try db.execute("INSERT INTO deliveries (consumer, delivered) VALUES ('a', 'soon')") }
        #expect {
            try store.deliveryMark(of: "a")
        } throws: { error in
            "\(error)".contains("deliveries") && "\(error)".contains("soon") && "\(error)".contains("consumer \"a\"")
        }
    }

    @Test("a file of the first schema is read as it is and migrated by a writer: its events have no state after")
    func firstSchema() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file()
        try FileManager.default.copyItem(atPath: EarlierDatabaseTests.fixture, toPath: path)
        let reader = try TurnstileStore.openForReading(path: path)
        #expect(try reader.stats().sessions == 2)
        try reader.close()
        let store = try TurnstileStore.open(path: path)
        let identifiers = try store.database.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
        #expect(identifiers == [StoreSchema.version1, StoreSchema.version2])
        let old = try store.events(after: 0, limit: 1)
        #expect(old.first?.sequence == 1 && old.first?.after == nil)
    }
}
