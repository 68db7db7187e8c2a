import Foundation
import Testing
import ControllerHost
import Turnstile

@Suite("README")
struct ReadmeTurnstileTests {
    @Test("the README shows the turnstile's current diagram")
    func readmeShowsTheDiagram() throws {
        var root = #filePath
        for _ in 0..<3 { root = String(root[..<root.lastIndex(of: "/")!]) }
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        #expect(readme.contains("```mermaid\n" + TurnstileMachine.table.mermaid() + "```"),
                "README.md's turnstile diagram is stale: paste the output of `swift run turnstiled graph`")
    }

    @Test("docs/turnstile.md, the turnstile's specification, shows its current diagram")
    func specificationShowsTheDiagram() throws {
        var root = #filePath
        for _ in 0..<3 { root = String(root[..<root.lastIndex(of: "/")!]) }
        let specification = try String(contentsOfFile: root + "/docs/turnstile.md", encoding: .utf8)
        #expect(specification.contains("```mermaid\n" + TurnstileMachine.table.mermaid() + "```"),
                "docs/turnstile.md's diagram is stale: paste the output of `swift run turnstiled graph`")
    }
}
