import ArgumentParser
import ControllerFSM
import ControllerHost
import Turnstile

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the turnstile's state diagram.",
        discussion: "Render DOT with `dot -Tsvg`; Mermaid renders in GitHub Markdown.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, mermaid
    }

    @Option(name: .long, help: "dot or mermaid.")
    var format: Format = .mermaid

    func run() {
        switch format {
        case .dot: print(TurnstileMachine.table.dot(name: "turnstile"), terminator: "")
        case .mermaid: print(TurnstileMachine.table.mermaid(), terminator: "")
        }
    }
}
