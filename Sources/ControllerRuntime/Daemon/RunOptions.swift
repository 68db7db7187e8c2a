import ControllerDaemon
import ControllerFSM
import ControllerHost
import ControllerSite
import ControllerStore

/// Everything a daemon is started with, as `run`'s options give it or as a `main` of its own
/// builds it in code. Each field is the command line's option of the same meaning (the
/// refusals name it so). ``validate(_:)`` is the one check of them, whichever way they came.
///
/// ```swift
/// var options = RunOptions(board: "/etc/turnstiled/board.toml")
/// options.database = "/var/lib/turnstiled/counts.sqlite"
/// options.controlSocket = "/run/turnstiled/control.sock"
/// ```
public struct RunOptions: Sendable {
    /// The board file.
    public var board: String
    /// One JSON object per line on standard output instead of the readable trace (`--json`).
    public var json = false
    /// Simulated boards: this scenario's inputs, played in real time (`--script`).
    public var script: String?
    /// With a script: stop, as SIGTERM would, when it ends (`--stop-at-end`).
    public var stopAtEnd = false
    /// Every input the controller takes, written as a scenario `simulate --script` replays (`--record`).
    public var record: String?
    /// Where the status page, `/status`, `/metrics` and `/healthz` are served; nil: no HTTP (`--no-http`).
    public var http: HTTPEndpoint? = .standard
    /// The SQLite file every count is made durable in (`--database`; created if missing).
    public var database: String?
    /// How many days each event's detail is kept (`--retention-days`; nil: all).
    public var retentionDays: Int?
    /// The Unix socket `ctl` talks to (`--control-socket`; mode 0660).
    public var controlSocket: String?
    /// The group whose members may use the control socket (`--control-group`; nil: the daemon's own).
    public var controlGroup: String?
    /// The site's broker, the node's id and Home Assistant's discovery (`--mqtt` and its options).
    public var site = SiteSettings()

    public init(board: String) {
        self.board = board
    }

    /// Refuses options that contradict each other, values out of their bounds and files the
    /// daemon would clash over, before anything is opened: the one validation of `run`'s
    /// options and of ``Daemon``'s.
    public func validate<App: ControllerApplication>(_: App.Type) throws(DaemonOptionError) {
        if stopAtEnd && script == nil { throw DaemonOptionError("--stop-at-end needs --script") }
        // The node's default id needs the board's name; everything else is checked here.
        _ = try site.resolve(boardName: "board", daemon: App.daemonName, hasDatabase: database != nil)
        // Bounded here, not where it is used: the retention's cutoff is computed an hour into
        // the run, and a value past the store's bound overflowed there (a crash loop under
        // Restart=on-failure).
        let retention = StoreLimits.minimumRetentionDays...StoreLimits.maximumRetentionDays
        if let retentionDays, !retention.contains(retentionDays) {
            throw DaemonOptionError("--retention-days must be between \(retention.lowerBound) and \(retention.upperBound), got \(retentionDays)")
        }
        if retentionDays != nil && database == nil { throw DaemonOptionError("--retention-days needs --database") }
        if controlGroup != nil && controlSocket == nil { throw DaemonOptionError("--control-group needs --control-socket") }
        try validatePaths(App.self)
    }

    /// Every file the daemon writes is its own, and a recording never replaces a file that is
    /// not a recording.
    private func validatePaths<App: ControllerApplication>(_: App.Type) throws(DaemonOptionError) {
        let named = [("--board", board), ("--record", record), ("--database", database), ("--control-socket", controlSocket)]
        if let clash = DaemonPaths.clash(among: named.compactMap { option, path in path.map { (option, $0) } }) {
            throw DaemonOptionError(clash)
        }
        if let record {
            do { try FlightRecorder<App>.checkReplaceable(record) } catch { throw DaemonOptionError("--record: \(error)") }
        }
    }
}
