import ControllerFSM
import Foundation
import PropertyBased
import Testing
import ControllerHost
import Turnstile
@testable import ControllerStore
import ControllerTestSupport

/// A database that passes `quick_check` but holds values turnstiled never writes (a hand edit,
/// another program): every read checks what it gets, and refuses it naming the table, the row,
/// the column and the value, instead of trapping on it or adding to it.
@Suite("CountStore: values read from the file are checked")
struct StoredValueTests {
    /// A database with a finished session (3 coins, 2 passages, credit 1) and its day's totals.
    func database(in scratch: ScratchDirectory) throws -> String {
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession()
        var tape = LedgerTape()
        for _ in 0..<3 { tape.coin() }
        tape.push()
        tape.push()
        try store.append(tape.take())
        try store.close()
        return scratch.file()
    }

    /// Changes the file with SQL, as another program would.
    func tamper(_ path: String, _ sql: String) throws {
        try runSQL(path, sql)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var sql: String
        var table: String
        var row: String
        var column: String
        var value: String
        /// Whether opening for recording reads it (it reads totals and sessions; only `stats`
        /// reads the days).
        var readByOpen = true
        var testDescription: String { "\(table).\(column) = \(value)" }
    }

    static let cases: [Case] = [
        Case(sql: "UPDATE totals SET amount = 'many' WHERE kind = 'coins'", table: "totals", row: #"kind "coins""#, column: "amount", value: #"the text "many""#),
        Case(sql: "UPDATE totals SET amount = 9223372036854775807 WHERE kind = 'coins'", table: "totals", row: #"kind "coins""#, column: "amount", value: "9223372036854775807"),
        Case(sql: "UPDATE totals SET amount = -1 WHERE kind = 'passages'", table: "totals", row: #"kind "passages""#, column: "amount", value: "-1"),
        Case(sql: "UPDATE totals SET amount = 2.5 WHERE kind = 'coins'", table: "totals", row: #"kind "coins""#, column: "amount", value: "the real number 2.5"),
        Case(sql: "UPDATE totals SET kind = x'00ff' WHERE kind = 'coins'", table: "totals", row: "kind a blob of 2 bytes", column: "kind", value: "a blob of 2 bytes"),
        Case(sql: "UPDATE sessions SET credit = 'x'", table: "sessions", row: "id 1", column: "credit", value: #"the text "x""#),
        Case(sql: "UPDATE sessions SET state = 'flying'", table: "sessions", row: "id 1", column: "state", value: #"the text "flying""#),
        Case(sql: "UPDATE sessions SET lastEntry = 'late'", table: "sessions", row: "id 1", column: "lastEntry", value: #"the text "late""#),
        Case(sql: "UPDATE daily_totals SET amount = 'x' WHERE kind = 'coins'", table: "daily_totals", row: #"day "2023-11-14", kind "coins""#, column: "amount", value: #"the text "x""#, readByOpen: false),
        Case(sql: "UPDATE daily_totals SET day = 'yesterday' WHERE kind = 'coins'", table: "daily_totals", row: #"day "yesterday", kind "coins""#, column: "day", value: #"the text "yesterday""#, readByOpen: false),
        // A day's total that is valid alone but breaks the relation with the overall total: now
        // refused at open, as the relation (StoreRelations).
        Case(sql: "INSERT INTO daily_totals VALUES ('2023-11-15', 'coins', 576460752303423487)", table: "totals", row: #"kind "coins""#, column: "amount", value: "3"),
    ]

    @Test("refused by the writer and by stats, naming table, row, column and value; the file is left as it was", arguments: cases)
    func refused(_ tampered: Case) throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        try tamper(path, tampered.sql)
        let before = try contents(path)
        func matches(_ error: any Error) -> Bool {
            guard case .invalidValue(let at, let table, let row, let column, let value, _, _) = error as? StoreError else { return false }
            return at == path && table == tampered.table && row == tampered.row && column == tampered.column && value == tampered.value
        }
        if tampered.readByOpen {
            #expect(performing: { try TurnstileStore.open(path: path) }, throws: matches)
        }
        #expect(performing: { try TurnstileStore.openForReading(path: path).stats() }, throws: matches)
        #expect(try contents(path) == before)
        let stats = try StatsCommandTests.turnstiled(["stats", "--database", path])
        #expect(stats.status == 4)
        #expect(stats.stderr.contains("table \(tampered.table), row \(tampered.row), column \(tampered.column) holds \(tampered.value)"), "\(stats.stderr)")
    }

    @Test("the largest total read is far enough from Int64.max that the money balance and the next increments cannot overflow")
    func headroom() throws {
        let totals = TurnstileTotals(
            counters: Dictionary(uniqueKeysWithValues: TurnstileStore.kinds.map { ($0, StoreLimits.maximumCount) }),
            gauges: ["credit": StoreLimits.maximumCount], state: .locked, lastEventUnixNanoseconds: nil)
        // The balance sums its parts, each at the largest count: a sum that wrapped would not
        // equal their true sum (a balance that overflows does not hold).
        let money = try #require(TurnstileApplication.durableInvariants.first)
        let trueSum = StoreLimits.maximumCount * money.parts.count
        #expect(money.holds { $0 == money.total ? trueSum : totals.counters[$0] ?? totals.gauge($0) })
        #expect(totals[money.total].addingReportingOverflow(StoreLimits.maximumCount).overflow == false, "a batch adds to the largest total")
    }

    @Test("any value put in any checked column: refused by name, or read as a valid count — never a trap")
    func randomValues() async {
        let columns: [(table: String, column: String, where_: String)] = [
            ("totals", "amount", "kind = 'coins'"), ("totals", "kind", "kind = 'passages'"), ("sessions", "credit", "id = 1"),
            ("sessions", "state", "id = 1"), ("sessions", "lastEntry", "id = 1"), ("daily_totals", "amount", "kind = 'coins'"),
            ("daily_totals", "day", "kind = 'coins'"), ("daily_totals", "kind", "kind = 'coins'"),
        ]
        let values: [String] = [
            "NULL", "-1", "0", "7", "9223372036854775807", "-9223372036854775808", "576460752303423487", "576460752303423488",
            "1.5", "1e300", "'x'", "'coins'", "'locked'", "'2024-02-30'", "'2024-02-29'", "x'00'", "''", "'12'",
        ]
        let input = zip(Gen.int(in: 0...(columns.count - 1)), Gen.int(in: 0...(values.count - 1)))
        await propertyCheck(count: PropertyCases.count(60), input: input) { columnIndex, valueIndex in
            let (table, column, where_) = columns[columnIndex]
            do {
                let scratch = try ScratchDirectory()
                let path = try database(in: scratch)
                do {
                    try tamper(path, "UPDATE \(table) SET \(column) = \(values[valueIndex]) WHERE \(where_)")
                } catch {
                    return  // a constraint refused the value (NOT NULL, a duplicate key): nothing to read
                }
                do {
                    let stats = try TurnstileStore.openForReading(path: path).stats()
                    for kind in TurnstileStore.kinds { #expect((0...StoreLimits.maximumCount).contains(stats.totals[kind])) }
                    #expect((0...StoreLimits.maximumCount).contains(stats.totals.credit))
                    _ = stats.periodCounts
                } catch let error as StoreError {
                    guard case .invalidValue(_, let refusedTable, _, _, _, _, _) = error else {
                        Issue.record("refused with another error: \(error)")
                        return
                    }
                    // A value of one table may be refused as the relation it breaks with the other
                    // (totals against daily_totals: StoreRelations).
                    let related: Set = ["totals", "daily_totals"]
                    #expect(refusedTable == table || (related.contains(refusedTable) && related.contains(table)))
                }
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}

/// The relations between stored values the daemon relies on: each broken
/// one is refused at open — by the writer and by `stats` — with exit 4 and a message naming the
/// table, the row, the column and the value; the file is left as it was.
@Suite("CountStore: relations between stored values are checked at open")
struct StoredRelationTests {
    /// A database with two sessions' events, a consumer's delivery mark, and its totals.
    func database(in scratch: ScratchDirectory) throws -> String {
        let store = try TurnstileStore.open(path: scratch.file())
        try store.beginTestSession()
        var tape = LedgerTape()
        for _ in 0..<3 { tape.coin() }
        tape.push()
        try store.append(tape.take())
        _ = try store.deliveryMark(of: "site")
        tape.push()
        tape.push()
        try store.append(tape.take())
        try store.close()
        return scratch.file()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var sql: String
        var table: String
        var column: String
        var value: String
        var testDescription: String { "\(sql)" }
    }

    static let cases: [Case] = [
        // The plainest case: a mark past the newest event; from then on nothing was ever published.
        Case(sql: "UPDATE deliveries SET delivered = 9223372036854775807", table: "deliveries", column: "delivered", value: "9223372036854775807"),
        Case(sql: "UPDATE deliveries SET delivered = (SELECT MAX(id) FROM events) + 1", table: "deliveries", column: "delivered", value: "7"),
        Case(sql: "UPDATE totals SET amount = amount + 1 WHERE kind = 'coins'", table: "totals", column: "amount", value: "4"),
        Case(sql: "UPDATE daily_totals SET amount = amount + 5 WHERE kind = 'passages'", table: "totals", column: "amount", value: "3"),
        Case(sql: "UPDATE events SET amount = 10 WHERE kind = 'coins'", table: "totals", column: "amount", value: "3"),
        Case(sql: "INSERT INTO daily_totals VALUES ('2023-11-15', 'ghosts', 2)", table: "daily_totals", column: "amount", value: "2"),
    ]

    @Test("a broken relation is refused at open and by stats, exit 4, naming table, column and value; the file is left as it was",
          arguments: cases)
    func refused(_ tampered: Case) throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        // The untouched file opens.
        try TurnstileStore.openForReading(path: path).close()
        try runSQL(path, tampered.sql)
        let before = try contents(path)
        func matches(_ error: any Error) -> Bool {
            guard case .invalidValue(_, let table, _, let column, let value, _, _) = error as? StoreError else { return false }
            return table == tampered.table && column == tampered.column && value == tampered.value
        }
        #expect(performing: { try TurnstileStore.open(path: path) }, throws: matches)
        #expect(performing: { try TurnstileStore.openForReading(path: path).stats() }, throws: matches)
        #expect(try contents(path) == before)
        let stats = try StatsCommandTests.turnstiled(["stats", "--database", path])
        #expect(stats.status == 4)
        #expect(stats.stderr.contains("table \(tampered.table)") && stats.stderr.contains("column \(tampered.column) holds \(tampered.value)"),
                "\(stats.stderr)")
    }

    @Test("retention may remove events, and even all of them: marks up to the newest id ever given still open")
    func afterRetention() throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        try runSQL(path, "UPDATE deliveries SET delivered = (SELECT MAX(id) FROM events); DELETE FROM events")
        let store = try TurnstileStore.open(path: path)
        try store.close()
    }

    @Test("any delivery mark: opened when within 0...newest, refused by name when past it — never a trap", arguments: [
        Int64.min, -1, 0, 1, 4, 5, 6, 1 << 40, Int64.max - 1, Int64.max,
    ])
    func anyMark(mark: Int64) throws {
        let scratch = try ScratchDirectory()
        let path = try database(in: scratch)
        let newest = try TurnstileStore.open(path: path).deliveryMark(of: "probe").newest
        try runSQL(path, "UPDATE deliveries SET delivered = \(mark)")
        switch Result(catching: { try TurnstileStore.open(path: path) }) {
        case .success(let store):
            try store.close()
            #expect((0...newest).contains(mark), "mark \(mark) was accepted")
        case .failure(let error):
            guard case .invalidValue(_, let table, _, let column, _, _, _) = error as? StoreError else {
                Issue.record("\(error)")
                return
            }
            #expect(table == "deliveries" && column == "delivered")
            #expect(!(0...newest).contains(mark))
        }
    }
}
