import ArgumentParser
import ControllerChecks
import Foundation

/// `controller-checks`: the checks CI runs on a controller's shipped daemon, driven by what its
/// package's `packaging/checks.json` says (run from the repository's root).
@main
struct ControllerChecksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controller-checks",
        abstract: "The checks CI runs on a controller's daemon, driven by its package's packaging/checks.json.",
        subcommands: [Crash.self, LoopSettings.self, SitePlanCommand.self])
}

/// Runs a check's `body`; a failure is said on standard error, and the exit status is 1.
func reportingFailure(_ body: () throws(CheckFailure) -> Void) throws {
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        throw ExitCode.failure
    }
}

/// Where the repository is, and the product a daemon binary is.
struct Repository: ParsableArguments {
    @Option(help: "The repository's root, whose Package.swift or Examples/*/Package.swift declares the product.")
    var repository = FileManager.default.currentDirectoryPath

    func package(ofDaemon daemon: String) throws(CheckFailure) -> ProductPackage {
        try ProductPackage(declaring: ProductPackage.productName(ofDaemon: daemon), in: repository)
    }
}

extension ControllerChecksCommand {
    struct Crash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Kills the daemon at random moments and checks every count it reported is durable.",
            discussion: """
                Runs DAEMON on its product's simulated board (with checks.json's "crash" boardEdits) \
                and a fresh database, drives checks.json's "crash" inputs through `ctl`, and KILLS \
                times takes the counts it reports, kills it with SIGKILL and starts it again. Every \
                count reported must be in the database afterwards and reported by the restarted \
                daemon; every balance holds. Exit 1 on a failure, naming the seed that repeats it.
                """)

        @Option(help: "The daemon's binary.")
        var daemon: String
        @Option(help: "How many times it is killed.")
        var kills = 50
        @Option(help: "A board to run instead of the product's simulated board.")
        var board: String?
        @Option(help: "The seed of the run's random choices (default: a new one, printed).")
        var seed: UInt64?
        @OptionGroup var repository: Repository

        func validate() throws {
            guard kills > 0 else { throw ValidationError("--kills must be at least 1") }
        }

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                let package = try repository.package(ofDaemon: daemon)
                let test = CrashTest(
                    daemon: daemon, package: package, spec: try package.check("crash", as: CrashCheckSpec.self),
                    kills: kills, seed: seed ?? UInt64.random(in: 1..<(1 << 32)), board: board)
                for line in try test.run() { print(line) }
            }
        }
    }

    struct LoopSettings: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "loop-settings",
            abstract: "Prints the loop allocation check's settings for PRODUCT as shell assignments.",
            discussion: "scripts/check-loop-allocations.sh evaluates them: board, script_source, ctl_pulse, duration, expected_counts.")

        @Argument(help: "The product (turnstiled, barrierd).")
        var product: String
        @Option(help: "How many `ctl pulse`s the check sends.")
        var pulses: Int
        @Option(help: "Where the edited board is written, when checks.json's \"loop\" edits it.")
        var editedBoard: String
        @OptionGroup var repository: Repository

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                let package = try ProductPackage(declaring: product, in: repository.repository)
                let spec = try package.check("loop", as: LoopCheckSpec.self)
                let board = try package.simulatedBoard(editedWith: spec.boardEdits, writingTo: editedBoard)
                print(spec.shellAssignments(package: package, board: board, pulses: pulses))
            }
        }
    }

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
