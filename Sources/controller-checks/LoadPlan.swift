import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    struct LoadPlan: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load-plan",
            abstract: "Writes the outbox load test's board and scenario for PRODUCT and prints them as shell assignments.",
            discussion: "scripts/site-load.sh evaluates them: board, script, events (how many counted events the scenario has).")

        @OptionGroup var product: ProductArgument
        @Option(help: "Seconds of events.")
        var seconds: Double
        @Option(help: "Counted events a second.")
        var rate: Int
        @Option(help: "Where board.toml and script.txt are written.")
        var folder: String

        func validate() throws {
            guard seconds > 0, rate > 0 else { throw ValidationError("--seconds and --rate must be positive") }
        }

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                let package = try product.package()
                let spec = try package.check("load", as: LoadCheckSpec.self)
                let board = try package.simulatedBoard(editedWith: spec.boardEdits, writingTo: folder + "/board.toml")
                let (script, events) = OutboxLoad.script(spec, seconds: seconds, rate: rate)
                let path = folder + "/script.txt"
                guard FileManager.default.createFile(atPath: path, contents: Data(script.utf8)) else { throw CheckFailure("cannot write \(path)") }
                print(["board=\(Shell.quoted(board))", "script=\(Shell.quoted(path))", "events=\(events)"].joined(separator: "\n"))
            }
        }
    }
}
