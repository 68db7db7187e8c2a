import ControllerFSM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost

/// Counts a stopping daemon could not write into its database (the disk stayed full, the storage
/// failed): kept in a small file beside it, `<database>.unwritten`, which the next `run` writes
/// into the database (`CountStore.beginSession`) and `stats` adds to what it shows, each saying
/// so. Without it a full disk at shutdown would take back coins the controller had counted.
///
/// The file is text, one `key value` a line after a header, so an operator can read it (the
/// turnstile's):
///
/// ```
/// turnstiled unwritten counts v1
/// session 3
/// time 1700000000123456789
/// state unlocked
/// credit 2
/// coins 5
/// passages 3
/// ```
///
/// `session` is the run they belong to, `time` its last step (nanoseconds since 1970 UTC),
/// `state` and each gauge (`credit`) where it stood, and each kind's count that the database
/// lacks. The header names the application's daemon.
public struct UnwrittenCounts<App: ControllerApplication>: Sendable, Equatable {
    /// The session (controller run) they were counted in.
    public var session: Int64
    /// The last step's wall-clock time, nanoseconds since 1970 UTC.
    public var time: Int64
    /// State and gauges after that step.
    public var state: App.State
    public var gauges: [String: Int]
    /// Each kind's increase the database lacks (only kinds that went up).
    public var counts: [String: Int]

    public init(session: Int64, time: Int64, state: App.State, gauges: [String: Int], counts: [String: Int]) {
        self.session = session
        self.time = time
        self.state = state
        self.gauges = gauges
        self.counts = counts
    }

    static var header: String { "\(App.daemonName) unwritten counts v1" }

    /// Where the counts of the database at `database` are kept.
    public static func path(forDatabase database: String) -> String { database + ".unwritten" }

    /// Every count together, for a log line.
    public var total: Int { counts.values.saturatingSum() }  // never wraps, whatever the file held

    /// `coins 5, passages 3`: the counts, in `CountStore.kinds`' order.
    public var summary: String {
        StoreDeclaration<App>().kinds.compactMap { kind in counts[kind].map { "\(kind) \($0)" } }.joined(separator: ", ")
    }

    var encoded: String {
        let declaration = StoreDeclaration<App>()
        var lines = [Self.header, "session \(session)", "time \(time)", "state \(declaration.stateNames[state.rawValue])"]
        for gauge in declaration.gauges { lines.append("\(gauge) \(gauges[gauge] ?? 0)") }
        for kind in declaration.kinds { if let count = counts[kind] { lines.append("\(kind) \(count)") } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads the file at `path`, checking every line; `nil` when there is none.
    static func load(_ path: String) throws(StoreError) -> UnwrittenCounts? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .system(path: path, operation: "read", errno: SystemErrno.current)
        }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    static func parse(_ text: String, path: String) throws(StoreError) -> UnwrittenCounts {
        func invalid(_ line: Int, _ reason: String) -> StoreError { .invalidUnwrittenFile(path: path, line: line, reason: reason) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.first == header else { throw invalid(1, "the first line is not \"\(header)\"") }
        var values: [String: (line: Int, value: String)] = [:]
        for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw invalid(index + 1, "expected a name and a value separated by one space") }
            let key = String(parts[0])
            guard values[key] == nil else { throw invalid(index + 1, "\(key.shown) is given twice") }
            values[key] = (index + 1, String(parts[1]))
        }
        func integer(_ key: String, in range: ClosedRange<Int64>) throws(StoreError) -> Int64 {
            guard let (line, text) = values.removeValue(forKey: key) else { throw invalid(lines.count, "\(key) is missing") }
            guard let value = Int64(text), range.contains(value) else {
                throw invalid(line, "\(key) \(text.shown) is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        let declaration = StoreDeclaration<App>()
        let session = try integer("session", in: 1...Int64.max)
        let time = try integer("time", in: Int64.min...Int64.max)
        var gauges: [String: Int] = [:]
        for gauge in declaration.gauges {
            gauges[gauge] = Int(try integer(gauge, in: 0...Int64(StoreLimits.maximumCount)))
        }
        guard let (stateLine, stateName) = values.removeValue(forKey: "state") else { throw invalid(lines.count, "state is missing") }
        guard let index = declaration.stateNames.firstIndex(of: stateName), let state = App.State(rawValue: index) else {
            throw invalid(stateLine, "unknown state \(stateName.shown)")
        }
        var counts: [String: Int] = [:]
        for kind in declaration.kinds where values[kind] != nil {
            counts[kind] = Int(try integer(kind, in: 1...Int64(StoreLimits.maximumCount)))
        }
        if let (key, entry) = values.min(by: { $0.value.line < $1.value.line }) {
            throw invalid(entry.line, "unknown name \(key.shown)")
        }
        return UnwrittenCounts(session: session, time: time, state: state, gauges: gauges, counts: counts)
    }
}
