import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    /// `controller-checks status metrics|json|page`: scripts/check-status-endpoints.sh's checks
    /// of what it fetched from a running daemon.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Checks what a daemon's status endpoints served: /metrics, /status, its page.",
            discussion: """
                Which daemon it is comes from /metrics (its NAME_state family); a daemon whose \
                package's packaging/checks.json has a "status" entry is held to its own families, \
                event kinds, /status keys and states besides the runtime's.
                """,
            subcommands: [Metrics.self, StatusJSON.self, Page.self])

        struct Metrics: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Checks /metrics as the Prometheus parser read it; prints what it found.")
            @OptionGroup var served: Served

            func run() throws {
                try reportingFailure { () throws(CheckFailure) in print("ok: \(try served.endpoints().metricsSummary)") }
            }
        }

        struct StatusJSON: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "json", abstract: "Checks /status' body; prints its state.")
            @OptionGroup var served: Served
            @Option(help: "/status' body.")
            var status: String

            func run() throws {
                try reportingFailure { () throws(CheckFailure) in
                    print(try served.endpoints().checkStatus(json: try read(status)))
                }
            }
        }

        struct Page: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Checks the page as a browser drew it (Chromium's --dump-dom) against /status.")
            @OptionGroup var served: Served
            @Option(help: "/status' body.")
            var status: String
            @Option(help: "The page's DOM after its script ran.")
            var dom: String

            func run() throws {
                try reportingFailure { () throws(CheckFailure) in
                    print("ok: " + (try served.endpoints().checkPage(dom: try read(dom), statusJSON: try read(status))))
                }
            }
        }
    }

    /// The metrics a daemon served, and where the packages that say what it shows are.
    struct Served: ParsableArguments {
        @Option(help: "/metrics' families as the Prometheus parser read them (JSON: [{name, type, samples: [{name, labels, value}]}]).")
        var families: String
        @OptionGroup var repository: Repository

        func endpoints() throws(CheckFailure) -> StatusEndpoints {
            try StatusEndpoints(families: try MetricFamily.decode(try read(families))) { daemon throws(CheckFailure) in
                // A daemon no package declares (status-fixture's) gets the runtime's checks alone.
                guard let package = try? ProductPackage(declaring: daemon, in: repository.repository) else { return nil }
                return try package.checkIfPresent("status", as: StatusCheckSpec.self)
            }
        }
    }
}
