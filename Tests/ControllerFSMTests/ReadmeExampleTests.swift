import ControllerFSM
import Foundation
import Testing

// The README's example ("A controller in 40 lines"), verbatim between the markers, so the
// README and docs/guide.md ("A machine") cannot drift from code that compiles and behaves as
// they say.

// README-EXAMPLE-BEGIN
enum Gate: Int, MachineSymbol { case locked, unlocked }
enum GateInput: Int, MachineSymbol { case coin, push, timeout }

struct Till {
    var credit = 0
    var passages = 0
}

enum GateTimer: Int, MachineTimer { case relock }

func makeGate() throws -> StateMachine<Gate, GateInput, Till> {
    var gate = MachineDefinition<Gate, GateInput, Till>(initial: .locked)

    gate.state(.locked) { s in
        s.on(.coin, to: .unlocked) { till, _ in till.credit = 1 }
    }

    gate.state(.unlocked) { s in
        s.onEntry { _, fx in fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout) }
        s.onExit { _, fx in fx.cancelTimer(GateTimer.relock) }
        s.on(.coin) { till, fx in
            till.credit += 1
            fx.startTimer(GateTimer.relock, after: .seconds(5), sending: .timeout)
        }
        s.on(.push, when: Guard("credit > 1") { $0.credit > 1 }) { till, _ in
            till.credit -= 1
            till.passages += 1
        }
        s.on(.push, to: .locked) { till, _ in
            till.credit = 0
            till.passages += 1
        }
        s.on(.timeout, to: .locked) { till, _ in till.credit = 0 }
    }

    // Validated once: a missing state, a duplicate row or an unreachable state throws here.
    let table = try gate.compile()
    return StateMachine(table: table, context: Till())
}
// README-EXAMPLE-END

@Suite("README example")
struct ReadmeExampleTests {
    @Test("the README's machine does what the README says")
    func readmeMachine() throws {
        // README-USAGE-BEGIN
        var gate = try makeGate()
        gate.start()
        gate.send(.coin, at: .zero)                                  // .transitioned → unlocked
        gate.send(.coin, at: MachineInstant(nanoseconds: 1_000_000_000))
        gate.send(.push, at: MachineInstant(nanoseconds: 2_000_000_000)) // .handledInternally
        gate.advance(to: MachineInstant(nanoseconds: 6_000_000_000))   // relock timer fires at 6 s
        print(gate.state, gate.context.passages)                      // locked 1
        print(gate.table.mermaid())
        // README-USAGE-END
        #expect(gate.state == .locked)
        #expect(gate.context.passages == 1)
        #expect(gate.context.credit == 0)
    }

    @Test("the README and docs/guide.md show this machine verbatim, and its diagram")
    func readmeDiagram() throws {
        try expectReadmeShows(#filePath, example: "README-EXAMPLE", usage: "README-USAGE", diagram: try makeGate().table.mermaid())
        try expectReadmeShows(#filePath, example: "README-EXAMPLE", usage: "README-USAGE", diagram: try makeGate().table.mermaid(),
                              in: "docs/guide.md")
    }
}

/// `document` (the README, or a file under docs/; relative to the repository) shows the code of
/// `sourcePath` between `// EXAMPLE-BEGIN`/`-END` and between `// USAGE-BEGIN`/`-END` (that one
/// indented by 8 spaces there) verbatim, and `diagram`.
func expectReadmeShows(
    _ sourcePath: String, example: String, usage: String, diagram: String, in document: String = "README.md",
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
    var path = sourcePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    let readme = try String(contentsOfFile: path + "/" + document, encoding: .utf8)
    let source = try String(contentsOfFile: sourcePath, encoding: .utf8)
    let exampleText = try #require(source.between("// \(example)-BEGIN\n", and: "// \(example)-END"), sourceLocation: sourceLocation)
    let usageText = try #require(source.between("// \(usage)-BEGIN\n", and: "        // \(usage)-END"), sourceLocation: sourceLocation).unindented()
    #expect(readme.contains(exampleText), "\(document) must show the \(example) code of \(sourcePath) verbatim", sourceLocation: sourceLocation)
    #expect(readme.contains(usageText), "\(document) must show the \(usage) code of \(sourcePath) verbatim", sourceLocation: sourceLocation)
    #expect(readme.contains(diagram), "\(document) must show the diagram", sourceLocation: sourceLocation)
}

extension String {
    func between(_ start: String, and end: String) -> String? {
        guard let from = range(of: start), let to = range(of: end, range: from.upperBound..<endIndex) else { return nil }
        return String(self[from.upperBound..<to.lowerBound])
    }

    /// Removes the indentation of a block indented by 8 spaces.
    func unindented() -> String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }
            .joined(separator: "\n")
    }
}
