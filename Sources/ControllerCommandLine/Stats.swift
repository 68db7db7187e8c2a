import ControllerRuntime
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost
import ControllerStore

package struct Stats<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "stats",
            abstract: "Print the counts in \(App.daemonName)'s database: the totals and each day's counts.",
            discussion: """
            Days are UTC. The totals cover the database's whole life: retention deletes old \
            events, never their counts.\(voidedHelp) \
            Reading never writes to the database and can run while the daemon records.

            Exit status:
              0   the counts were printed
              2   an invalid --since date
              4   the database cannot be read (missing, damaged, not a count database, permissions)
              5   SQLite's library is not installed (the message names the package)
              74  standard output could not be written
            """)
    }

    /// What a gauge's restart kind means (the turnstile's creditsVoidedByRestart).
    private static var voidedHelp: String {
        App.gauges.compactMap { gauge in
            gauge.voidedByRestart.map { " \($0) is \(gauge.name) that stood when the daemon stopped (killed, power lost, shut down), which its next start could not honour." }
        }.joined()
    }

    package init() {}

    /// Where the installed daemon keeps its counts (the .deb's default).
    static var defaultDatabase: String { "/var/lib/\(App.daemonName)/counts.sqlite" }

    @Option(name: .long, help: ArgumentHelp("The count database.", valueName: "file"))
    var database: String = Self.defaultDatabase

    @Option(name: .long, help: ArgumentHelp("Only the days from this one on (UTC).", valueName: "YYYY-MM-DD"))
    var since: String?

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    package func run() throws {
        var first: UTCDay?
        if let since {
            guard let day = UTCDay(parsing: since) else {
                Terminal.error("invalid --since \"\(since.shown)\": give a date as YYYY-MM-DD (UTC), e.g. 2024-03-01")
                throw ControllerExit.badInput
            }
            first = day
        }
        let stats: StoreStats<App>
        do {
            let store = try CountStore<App>.openForReading(path: database)
            stats = try store.stats(since: first)
            try? store.close()
        } catch {
            Terminal.error("\(error)")
            throw ControllerExit.of(error, otherwise: ControllerExit.storeError)
        }
        if let unwritten = stats.unwritten {
            Terminal.log("\(unwritten.total) count(s) a stopped run could not write (\(unwritten.summary)) are in \(UnwrittenCounts<App>.path(forDatabase: database)): included in the totals below (not in the days); the next `\(App.daemonName) run` writes them into the database")
        }
        print(json ? StatsText<App>.json(stats, database: database) : StatsText<App>.table(stats, database: database, style: Style(enabled: Terminal.wantsColor)))
    }
}

/// `stats`' two renderings.
enum StatsText<App: ControllerApplication> {
    static func table(_ stats: StoreStats<App>, database: String, style: Style) -> String {
        let totals = stats.totals
        var lines = [style.bold("\(App.daemonName) stats") + style.dim(" — \(database.shownLine)")]
        let last = totals.lastEventTime.map(timestamp) ?? "none"
        let gauges = App.gauges.map { "\($0.name) \(totals.gauge($0.name))" }
        lines.append("\(stats.sessions) runs recorded, last step \(last); now \(totals.state.name)" + (gauges.isEmpty ? "" : " with " + gauges.joined(separator: ", ")))
        let value = { (name: String) in totals.counters[name] ?? totals.gauges[name] ?? 0 }
        for invariant in App.durableInvariants {
            let balance = invariant.labelsFirst(value)
            lines.append(totals.holds(invariant) ? "\(invariant.name) balances: \(balance)" : style.red("\(invariant.name) does NOT balance: \(balance)"))
        }
        // Only the kinds that ever happened get a column: a table of 12 mostly empty columns
        // would not fit a terminal.
        let kinds = CountStore<App>.kinds.filter { totals[$0] != 0 }
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

    /// `stats --json`: the fixed fields, then each gauge under its name and each balance as
    /// `<name>Balances` (the turnstile's `credit` and `moneyBalances`).
    struct JSONStats: Encodable {
        struct Day: Encodable {
            var day: String
            var counts: [String: Int]
        }

        var database: String
        var since: String?
        var sessions: Int
        var state: String
        var gauges: [String: Int]
        var lastEvent: String?
        var balances: [String: Bool]
        var totals: [String: Int]
        var days: [Day]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONKey.self)
            try container.encode(database, forKey: JSONKey("database"))
            try container.encodeIfPresent(since, forKey: JSONKey("since"))
            try container.encode(sessions, forKey: JSONKey("sessions"))
            try container.encode(state, forKey: JSONKey("state"))
            for (name, value) in gauges { try container.encode(value, forKey: JSONKey(name)) }
            try container.encodeIfPresent(lastEvent, forKey: JSONKey("lastEvent"))
            for (name, holds) in balances { try container.encode(holds, forKey: JSONKey(name + "Balances")) }
            try container.encode(totals, forKey: JSONKey("totals"))
            try container.encode(days, forKey: JSONKey("days"))
        }
    }

    struct JSONKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func json(_ stats: StoreStats<App>, database: String) -> String {
        let value = JSONStats(
            database: database, since: stats.since?.description, sessions: stats.sessions,
            state: stats.totals.state.name,
            gauges: Dictionary(uniqueKeysWithValues: App.gauges.map { ($0.name, stats.totals.gauge($0.name)) }),
            lastEvent: stats.totals.lastEventTime.map(timestamp),
            balances: Dictionary(uniqueKeysWithValues: App.durableInvariants.map { ($0.name, stats.totals.holds($0)) }),
            totals: stats.totals.counters, days: stats.days.map { JSONStats.Day(day: $0.day.description, counts: $0.counts) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, integers and booleans cannot fail.
        let data = (try? encoder.encode(value)) ?? Data()
        return JSONText.escapingInvisibles(String(decoding: data, as: UTF8.self))
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }
}
