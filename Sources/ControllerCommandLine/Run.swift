import ArgumentParser
import ControllerDaemon
import ControllerHost
import ControllerRuntime
import ControllerSite
import ControllerStore

/// `run`: the daemon's options as the command line spells them, handed to the runtime
/// (``Daemon``) as ``RunOptions``; what `run` does is the runtime's.
struct Run<App: ControllerApplication>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run",
            abstract: "Run the \(App.name) as a daemon: on real GPIO lines through libgpiod, or on a simulated board.",
            discussion: """
            Opens the board's chip, requests the outputs at their start-up levels and then the \
            inputs, reads the level inputs (the self-test), and runs until SIGTERM or SIGINT. \
            Then it stops taking events, finishes the one in hand, drives the outputs that have \
            one to their stop level\(stopLevelsHelp), makes every count durable, releases the \
            lines and exits 0. SIGHUP reads the board file again and takes its [\(App.settings.section)] \
            settings (a board whose lines changed is refused; the running configuration stays).

            On a simulated board (backend = "sim") time is real and the inputs come from \
            --script, played in real time, or from `\(App.daemonName) ctl pulse` and `ctl set`.

            Under systemd (Type=notify) it reports READY=1 after the self-test, WATCHDOG=1 from \
            the event loop, STOPPING=1 and its state in STATUS=, and logs plain lines for the \
            journal. Transitions and output changes are printed as `simulate` prints them, \
            with times in seconds since the start.

            Exit status: 0 after SIGTERM or SIGINT (or the end of a script with \
            --stop-at-end), 1 when an expect line of the script failed (each is reported on \
            standard error with its line; expects are checked as in simulate, against \
            everything strictly before their time), 2 for a bad board file, scenario or \
            option, 3 when a GPIO error stopped the controller (chip not found, a line busy, \
            permission denied), 4 when the count database cannot be used.
            """)
    }

    /// ` (lock: as fail_mode says)`: the outputs with a stop level, for `--help`.
    private static var stopLevelsHelp: String {
        let roles = App.outputs.filter { $0.stopLevel != nil }.map(\.role.rawValue)
        return roles.isEmpty ? "" : " (\(roles.joined(separator: ", ")))"
    }

    init() {}

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "file"))
    var board: String

    @Flag(name: .long, help: "Write one JSON object per line instead of the readable trace.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Simulated boards: play this scenario's inputs in real time.", valueName: "file"))
    var script: String?

    @Flag(name: .long, help: "With --script: stop (as SIGTERM would) when the scenario ends.")
    var stopAtEnd = false

    @Option(name: .long, help: ArgumentHelp("Write every input the controller takes as a scenario that `simulate --script` replays.", valueName: "file"))
    var record: String?

    @Option(name: .long, help: ArgumentHelp("Serve the status page, /status, /metrics and /healthz here (port \(HTTPEndpoint.ports.lowerBound) to \(HTTPEndpoint.ports.upperBound); 0: any free port).", valueName: "address:port"))
    var http = HTTPEndpoint.standard

    @Flag(name: .long, help: "Serve no HTTP.")
    var noHttp = false

    @Option(name: .long, help: ArgumentHelp("Make every count durable in this SQLite file (created if missing; a damaged one is refused and kept).", valueName: "file"))
    var database: String?

    @Option(name: .long, help: ArgumentHelp("Keep each event's detail this many days, between \(StoreLimits.minimumRetentionDays) and \(StoreLimits.maximumRetentionDays); older ones live on in the daily totals (default: keep all).", valueName: "days"))
    var retentionDays: Int?

    @Option(name: .long, help: ArgumentHelp("Listen for `\(App.daemonName) ctl` on this Unix socket (mode 0660).", valueName: "path"))
    var controlSocket: String?

    @Option(name: .long, help: ArgumentHelp("The group whose members may use the control socket (default: the daemon's own).", valueName: "name"))
    var controlGroup: String?

    @OptionGroup(title: "The site's MQTT broker")
    var site: SiteOptions

    /// The options as the runtime takes them.
    var options: RunOptions {
        var options = RunOptions(board: board)
        options.json = json
        options.script = script
        options.stopAtEnd = stopAtEnd
        options.record = record
        options.http = noHttp ? nil : http
        options.database = database
        options.retentionDays = retentionDays
        options.controlSocket = controlSocket
        options.controlGroup = controlGroup
        options.site = site.settings
        return options
    }

    func validate() throws {
        try usage { () throws(DaemonOptionError) in try options.validate(App.self) }
    }

    func run() async throws {
        try await Daemon<App>(options).run()
    }
}

/// `--http ADDRESS:PORT`.
extension HTTPEndpoint: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}
