import ArgumentParser
import Foundation
import ControllerHost
import Turnstile
import ControllerStore

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the counts in turnstiled's database: the totals and each day's counts.",
        discussion: """
            Days are UTC. The totals cover the database's whole life: retention deletes old \
            events, never their counts. creditsVoidedByRestart is credit that stood when the \
            daemon stopped (killed, power lost, shut down), which its next start could not honour.
            Reading never writes to the database and can run while the daemon records.

            Exit status:
              0   the counts were printed
              2   an invalid --since date
              4   the database cannot be read (missing, damaged, not a count database, permissions)
              74  standard output could not be written
            """)

    /// Where the installed daemon keeps its counts (the .deb's default).
    static let defaultDatabase = "/var/lib/turnstiled/counts.sqlite"

    @Option(name: .long, help: ArgumentHelp("The count database.", valueName: "file"))
    var database: String = Stats.defaultDatabase

    @Option(name: .long, help: ArgumentHelp("Only the days from this one on (UTC).", valueName: "YYYY-MM-DD"))
    var since: String?

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    func run() throws {
        var first: UTCDay?
        if let since {
            guard let day = UTCDay(parsing: since) else {
                Terminal.error("invalid --since \"\(since)\": give a date as YYYY-MM-DD (UTC), e.g. 2024-03-01")
                throw ExitStatus.badInput
            }
            first = day
        }
        let stats: StoreStats<TurnstileApplication>
        do {
            let store = try TurnstileCountStore.openForReading(path: database)
            stats = try store.stats(since: first)
            try? store.close()
        } catch {
            Terminal.error("\(error)")
            throw ExitStatus.storeError
        }
        if let unwritten = stats.unwritten {
            Terminal.log("\(unwritten.total) count(s) a stopped run could not write (\(unwritten.summary)) are in \(UnwrittenCounts<TurnstileApplication>.path(forDatabase: database)): included in the totals below (not in the days); the next `turnstiled run` writes them into the database")
        }
        print(json ? StatsText.json(stats, database: database) : StatsText.table(stats, database: database, style: Style(enabled: Terminal.wantsColor)))
    }
}

/// `stats`' two renderings.
enum StatsText {
    static func table(_ stats: StoreStats<TurnstileApplication>, database: String, style: Style) -> String {
        let totals = stats.totals
        var lines = [style.bold("turnstiled stats") + style.dim(" — \(database)")]
        let last = totals.lastEventTime.map(timestamp) ?? "none"
        lines.append("\(stats.sessions) runs recorded, last step \(last); now \(totals.state.name) with credit \(totals.credit)")
        let balance = "coins \(totals["coins"]) = passages \(totals["passages"]) + expired \(totals["expiredCredits"]) "
            + "+ out of service \(totals["coinsOutOfService"]) + voided by restart \(totals["creditsVoidedByRestart"]) "
            + "+ credit \(totals.credit)"
        lines.append(totals.invariantsHold ? "money balances: \(balance)" : style.red("money does NOT balance: \(balance)"))
        // Only the kinds that ever happened get a column: a table of 12 mostly empty columns
        // would not fit a terminal.
        let kinds = TurnstileCountStore.kinds.filter { totals[$0] != 0 }
        guard !kinds.isEmpty else {
            lines.append("nothing counted yet")
            return lines.joined(separator: "\n")
        }
        var rows: [(String, [String: Int])] = stats.days.map { ($0.day.description, $0.counts) }
        if let since = stats.since, !stats.days.isEmpty { rows.append(("since \(since)", stats.periodCounts)) }
        rows.append(("total", totals.counters))
        let labelWidth = rows.map(\.0.count).max() ?? 0
        let widths = kinds.map { kind in max(kind.count, rows.map { String($0.1[kind] ?? 0).count }.max() ?? 0) }
        func cells(_ texts: [String]) -> String {
            zip(texts, widths).map { "  " + $0.leftPadded($1) }.joined()
        }
        lines.append("")
        if let since = stats.since, stats.days.isEmpty { lines.append("no counts since \(since)") }
        lines.append(style.bold("day".padding(labelWidth + 1) + cells(kinds)))
        for (index, (label, counts)) in rows.enumerated() {
            let line = label.padding(labelWidth + 1) + cells(kinds.map { String(counts[$0] ?? 0) })
            lines.append(index >= stats.days.count ? style.bold(line) : line)
        }
        return lines.joined(separator: "\n")
    }

    struct JSONStats: Encodable {
        struct Day: Encodable {
            var day: String
            var counts: [String: Int]
        }

        var database: String
        var since: String?
        var sessions: Int
        var state: String
        var credit: Int
        var lastEvent: String?
        var moneyBalances: Bool
        var totals: [String: Int]
        var days: [Day]
    }

    static func json(_ stats: StoreStats<TurnstileApplication>, database: String) -> String {
        let value = JSONStats(
            database: database, since: stats.since?.description, sessions: stats.sessions,
            state: stats.totals.state.name, credit: stats.totals.credit,
            lastEvent: stats.totals.lastEventTime.map(timestamp), moneyBalances: stats.totals.invariantsHold,
            totals: stats.totals.counters, days: stats.days.map { JSONStats.Day(day: $0.day.description, counts: $0.counts) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, integers and booleans cannot fail.
        let data = (try? encoder.encode(value)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }
}
