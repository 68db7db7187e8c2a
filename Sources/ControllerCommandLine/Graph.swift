import ControllerRuntime
import ArgumentParser
import ControllerFSM
import ControllerHost

package struct Graph<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "graph",
            abstract: "Print the \(App.name)'s state diagram.",
            discussion: "Render DOT with `dot -Tsvg`; Mermaid renders in GitHub Markdown; SCXML (the structure: states, nesting, rows with their events and guards) opens in SCXML editors.")
    }

    package init() {}

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, mermaid, scxml
    }

    @Option(name: .long, help: "dot, mermaid or scxml.")
    var format: Format = .mermaid

    package func run() {
        switch format {
        case .dot: print(App.table.dot(name: App.name), terminator: "")
        case .mermaid: print(App.table.mermaid(), terminator: "")
        case .scxml: print(App.table.scxml(name: App.name), terminator: "")
        }
    }
}
