import ArgumentParser
import ControllerFSM
import ControllerHost

package struct Graph<App: ControllerApplication>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "graph",
            abstract: "Print the \(App.name)'s state diagram.",
            discussion: "Render DOT with `dot -Tsvg`; Mermaid renders in GitHub Markdown.")
    }

    package init() {}

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, mermaid
    }

    @Option(name: .long, help: "dot or mermaid.")
    var format: Format = .mermaid

    package func run() {
        switch format {
        case .dot: print(App.table.dot(name: App.name), terminator: "")
        case .mermaid: print(App.table.mermaid(), terminator: "")
        }
    }
}
