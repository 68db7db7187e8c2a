import ArgumentParser
import ControllerChecks
import Foundation

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
}
