import ArgumentParser
import ControllerChecks
import Foundation

extension ControllerChecksCommand {
    struct SymbolSizesCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "symbol-sizes",
            abstract: "Sums a binary's symbols by the Swift module or C symbol they come from; prints the largest.",
            discussion: "Reads `nm --print-size --size-sort --radix=d BINARY` on standard input (scripts/size-check.sh).")

        @Option(help: "How many to print.")
        var top = 15

        func validate() throws {
            guard top > 0 else { throw ValidationError("--top must be at least 1") }
        }

        func run() throws {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            for (origin, bytes) in SymbolSizes.contributors(nmOutput: input).prefix(top) {
                print("    " + String(format: "%8.2f", Double(bytes) / 1e6) + " MB  " + origin)
            }
        }
    }
}
