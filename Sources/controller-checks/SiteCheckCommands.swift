import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    struct SitePageCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "site-page",
            abstract: "Checks the site page as a browser drew it against the site test's plan.",
            discussion: """
                A row per planned node, each online and showing its application in the state the \
                site-wide emergency put it in, every outbox 0, the summary and the sums per \
                application right. Exit 1 with every problem when not.
                """)

        @Option(help: "The page's DOM after its script ran (Chromium's --dump-dom).")
        var dom: String
        @Option(help: "What `controller-checks site-plan` printed.")
        var plan: String

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                let nodes = try SitePageCheck.PlannedNode.plan(try read(plan))
                let problems = SitePageCheck.problems(dom: try read(dom), plan: nodes)
                guard problems.isEmpty else { throw CheckFailure("site page: " + problems.joined(separator: "\n  ")) }
                print("site-test: the site page in Chromium lists all \(nodes.count) controllers online and in their emergency state, every outbox empty")
            }
        }
    }

    struct SiteResultsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "site-results",
            abstract: "Checks what the site test's stopped controllers did and what fleet says of them.",
            discussion: """
                FOLDER holds nodeN.out (each daemon's `run --json` trace) and nodeN.stats (its \
                `stats --json`) for N from 1 to NODES, and fleet.json (`fleet --json`). Each \
                controller must have taken the emergency within the limit of its publication, \
                and fleet must list every node offline with sums equal to the daemons' stats.
                """)

        @Option(help: "Where the nodes' files and fleet.json are.")
        var folder: String
        @Option(help: "How many nodes ran.")
        var nodes: Int
        @Option(help: "When the emergency was published, in Unix nanoseconds.")
        var published: Int64
        @Option(help: "The trace's event of the site-wide emergency.")
        var event = "emergencyOn"
        @Option(help: "How long the emergency may take to reach the slowest controller, in milliseconds.")
        var limitMilliseconds: Double = 1000

        func validate() throws {
            guard nodes > 0 else { throw ValidationError("--nodes must be at least 1") }
        }

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                var records: [SiteResults.Node] = []
                for number in 1...nodes {
                    records.append(SiteResults.Node(number: number, trace: try read("\(folder)/node\(number).out"),
                                                    stats: try read("\(folder)/node\(number).stats")))
                }
                let results = try SiteResults(fleet: try read("\(folder)/fleet.json"), nodes: records, event: event,
                                              published: published, limitMilliseconds: limitMilliseconds)
                print("site-test: emergency on, from publication to each controller's emergency step: \(results.latencySummary) (limit \(Int(limitMilliseconds)) ms)")
                guard results.problems.isEmpty else { throw CheckFailure(results.problems.joined(separator: "\nerror: ")) }
                print("site-test: fleet sums equal the \(nodes) daemons' stats (\(results.countedTotal) counts: \(results.sumsSummary))")
            }
        }
    }
}
