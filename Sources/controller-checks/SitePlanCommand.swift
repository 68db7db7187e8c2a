import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    struct SitePlanCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "site-plan",
            abstract: "Writes each site test node's scenario and prints the nodes, one line each.",
            discussion: """
                Node N runs the products whose packaging/checks.json has a "site" entry in turn, \
                with traffic of its own (seeded by N) in FOLDER/nodeN.txt. Each line printed is \
                tab-separated: N, the product, its simulated board, its application's name and \
                the state it shows after a site-wide emergency (scripts/site-test.sh reads them).
                """)

        @Option(help: "How many nodes.")
        var nodes: Int
        @Option(help: "Seconds of traffic.")
        var seconds: Double
        @Option(help: "Where the scenarios are written.")
        var folder: String
        @OptionGroup var repository: Repository

        func validate() throws {
            guard nodes > 0 else { throw ValidationError("--nodes must be at least 1") }
            guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
        }

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                for node in try SitePlan(nodes: nodes, repository: repository.repository).nodes {
                    let path = "\(folder)/node\(node.number).txt"
                    let script = SiteTraffic.script(node.spec, seed: UInt64(node.number), seconds: seconds)
                    guard FileManager.default.createFile(atPath: path, contents: Data(script.utf8)) else {
                        throw CheckFailure("cannot write \(path)")
                    }
                    print([String(node.number), node.package.product, node.package.simulatedBoardPath, node.spec.app, node.spec.emergencyState]
                        .joined(separator: "\t"))
                }
            }
        }
    }
}
