import ControllerFSM
import ControllerHost

/// One counted event as a consumer of the store sees it (the MQTT publisher's message).
public struct OutboxEvent: Equatable, Sendable {
    /// The event's row id: assigned in the commit, never reused (the table is AUTOINCREMENT), so
    /// it orders a node's events and names each one for a consumer that drops duplicates.
    public var sequence: Int64
    /// Nanoseconds since 1970 UTC.
    public var unixNanoseconds: Int64
    /// The counter or state count (`coins`, `passages`, `entered:emergency`).
    public var kind: String
    /// Usually 1; more when the ledger merged steps (a full ring).
    public var amount: Int
    /// The state the step started in.
    public var before: String
    /// The state it ended in; nil in rows written before the store kept it (schema v1).
    public var after: String?
    /// The controller run (the `sessions` row) that counted it.
    public var session: Int64
}

/// Where a consumer stands in the events: the highest sequence up to which it has every one.
public struct DeliveryMark: Equatable, Sendable {
    public var delivered: Int64
    /// The highest sequence the store had when the mark was read.
    public var newest: Int64
}

extension CountStore {
    /// `consumer`'s mark, made at the newest event the first time a consumer is seen (it gets
    /// what is counted from then on, not the file's history).
    public func deliveryMark(of consumer: String) throws(StoreError) -> DeliveryMark {
        do {
            return try database.write { db in
                let newest = try db.value("SELECT COALESCE(MAX(id), 0) FROM events")?.integer ?? 0
                if let row = try db.row("SELECT consumer, delivered FROM deliveries WHERE consumer = ?", [consumer]) {
                    let stored = StoredRow(row, table: "deliveries", path: path, daemon: App.daemonName, key: "consumer")
                    return DeliveryMark(delivered: try stored.identifier("delivered"), newest: newest)
                }
                try db.execute("INSERT INTO deliveries (consumer, delivered) VALUES (?, ?)", [consumer, newest])
                return DeliveryMark(delivered: newest, newest: newest)
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "read the delivery mark of \(consumer) in")
        }
    }

    /// Up to `limit` events after `sequence`, oldest first.
    public func events(after sequence: Int64, limit: Int) throws(StoreError) -> [OutboxEvent] {
        do {
            return try database.read { db in
                try db.cached("SELECT id, time, kind, amount, state, after, session FROM events WHERE id > ? ORDER BY id LIMIT ?")
                    .rows([sequence, limit])
                    .map { row in
                        let stored = StoredRow(row, table: "events", path: path, daemon: App.daemonName)
                        return OutboxEvent(
                            sequence: try stored.identifier("id"), unixNanoseconds: try stored.optionalInteger("time") ?? 0,
                            kind: try stored.text("kind"), amount: try stored.count("amount"), before: try stored.text("state"),
                            after: try stored.optionalText("after"), session: try stored.identifier("session"))
                    }
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "read the events to deliver from")
        }
    }

    /// Records that `consumer` has every event up to `sequence`. A mark never moves back.
    public func markDelivered(upTo sequence: Int64, consumer: String) throws(StoreError) {
        do {
            try database.write { db in
                try db.cached("""
                    INSERT INTO deliveries (consumer, delivered) VALUES (?, ?)
                    ON CONFLICT (consumer) DO UPDATE SET delivered = MAX(delivered, excluded.delivered)
                    """).execute([consumer, sequence])
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "record the delivery of event \(sequence) to \(consumer) in")
        }
    }

    /// How many events there are after `sequence` (a consumer's outbox depth).
    public func eventCount(after sequence: Int64) throws(StoreError) -> Int {
        do {
            return try database.read { db in
                Int(try db.cached("SELECT COUNT(*) FROM events WHERE id > ?").rows([sequence]).first?[0].integer ?? 0)
            }
        } catch {
            throw StoreError.from(error, path: path, operation: "count the events to deliver in")
        }
    }
}
