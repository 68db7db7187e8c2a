import ControllerTestSupport
import Foundation
import Testing
import ControllerHost
import Turnstile

@Suite("README")
struct ReadmeTurnstileTests {
    /// `file` (relative to the repository) shows the turnstile's diagram as `graph` prints it.
    static func expectCurrentDiagram(in file: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try String(contentsOfFile: repositoryPath(file), encoding: .utf8)
        #expect(text.contains("```mermaid\n" + TurnstileMachine.table.mermaid() + "```"),
                "\(file)'s turnstile diagram is stale: paste the output of `swift run turnstiled graph`", sourceLocation: sourceLocation)
    }

    @Test("the README shows the turnstile's current diagram")
    func readmeShowsTheDiagram() throws {
        try Self.expectCurrentDiagram(in: "README.md")
    }

    @Test("docs/turnstile.md, the turnstile's specification, shows its current diagram")
    func specificationShowsTheDiagram() throws {
        try Self.expectCurrentDiagram(in: "docs/turnstile.md")
    }
}
