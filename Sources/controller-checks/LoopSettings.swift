import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    struct LoopSettings: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "loop-settings",
            abstract: "Prints the loop allocation check's settings for PRODUCT as shell assignments.",
            discussion: "scripts/check-loop-allocations.sh evaluates them: board, script_source, ctl_pulse, duration, expected_counts.")

        @OptionGroup var product: ProductArgument
        @Option(help: "How many `ctl pulse`s the check sends.")
        var pulses: Int
        @Option(help: "Where the edited board is written, when checks.json's \"loop\" edits it.")
        var editedBoard: String

        func run() throws {
            try reportingFailure { () throws(CheckFailure) in
                let package = try product.package()
                let spec = try package.check("loop", as: LoopCheckSpec.self)
                let board = try package.simulatedBoard(editedWith: spec.boardEdits, writingTo: editedBoard)
                print(spec.shellAssignments(package: package, board: board, pulses: pulses))
            }
        }
    }
}
