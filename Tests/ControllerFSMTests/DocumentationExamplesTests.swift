import ControllerTestSupport
import Foundation
import Testing

/// Every Swift example the repository shows — in its Markdown (the README, docs/, each example
/// package's) and in its doc comments — is code that compiles: its lines stand, in order, in one
/// Swift file of the repository outside a doc comment (a test that holds the example, or the
/// source it quotes). An example may leave out what does not matter with `// ...` (a line of its
/// own, or the rest of a line) or `/* ... */`; what it shows must be there as shown.
@Suite("Documentation: every Swift example is code that compiles")
struct DocumentationExamplesTests {
    /// A fenced Swift example: where it is, and its lines (indentation and blank lines dropped).
    struct Example: CustomStringConvertible {
        var file: String
        var line: Int
        var lines: [String]
        var description: String { "\(file):\(line)" }
    }

    /// The repository's files ending in `suffix`, relative to its root, outside hidden and build
    /// directories.
    static func files(endingIn suffix: String) -> [String] {
        guard let walker = FileManager.default.enumerator(
            at: repositoryRoot, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            let relative = String(url.path.dropFirst(repositoryRoot.path.count + 1))
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".build") || $0 == "node_modules" }) {
                walker.skipDescendants()
                continue
            }
            if relative.hasSuffix(suffix) { found.append(relative) }
        }
        return found.sorted()
    }

    static func read(_ relative: String) -> [String] {
        ((try? String(contentsOf: repositoryRoot.appendingPathComponent(relative), encoding: .utf8)) ?? "")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The examples fenced as ```swift in `lines`, each line read through `unwrap` (which strips
    /// a doc comment's `///`; nil: not part of a comment, so no example continues past it).
    static func examples(in file: String, lines: [String], unwrap: (String) -> String?) -> [Example] {
        var found: [Example] = []
        var current: Example?
        for (index, raw) in lines.enumerated() {
            guard let text = unwrap(raw) else { current = nil; continue }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if current == nil {
                if trimmed == "```swift" { current = Example(file: file, line: index + 1, lines: []) }
            } else if trimmed == "```" {
                found.append(current!)
                current = nil
            } else if !trimmed.isEmpty && trimmed != "// ..." && trimmed != "..." {
                current!.lines.append(trimmed)
            }
        }
        return found
    }

    static let markdownExamples: [Example] = files(endingIn: ".md").flatMap { file in
        examples(in: file, lines: read(file)) { $0 }
    }

    static let swiftFiles: [String: [String]] = Dictionary(uniqueKeysWithValues: files(endingIn: ".swift").map { ($0, read($0)) })

    static let docCommentExamples: [Example] = swiftFiles.sorted { $0.key < $1.key }.flatMap { file, lines in
        examples(in: file, lines: lines) { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("///") ? String(trimmed.dropFirst(3)) : nil
        }
    }

    /// Each Swift file's code lines, trimmed: doc comments left out, so an example never finds
    /// itself.
    static let code: [(file: String, lines: [String])] = swiftFiles.sorted { $0.key < $1.key }.map { file, lines in
        (file, lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("///") })
    }

    /// The pieces of an example's line that must appear in order in one line of code: the
    /// line, cut at each `/* ... */` and before a trailing `// ...`.
    static func pieces(of line: String) -> [Substring] {
        var text = Substring(line)
        if let elision = text.range(of: "// ...") { text = text[..<elision.lowerBound] }
        return text.split(separator: "/* ... */", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces)[...] }.filter { !$0.isEmpty }
    }

    static func line(_ code: String, shows pieces: [Substring]) -> Bool {
        var rest = code[...]
        for piece in pieces {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    /// The file that holds `example`'s lines in order; nil when none does.
    static func home(of example: Example) -> String? {
        let wanted = example.lines.map(pieces(of:))
        return code.first { _, lines in
            var next = lines.startIndex
            for pieces in wanted {
                guard let found = lines[next...].firstIndex(where: { line($0, shows: pieces) }) else { return false }
                next = found + 1
            }
            return true
        }?.file
    }

    @Test("each Swift example in the Markdown is code in a compiled file")
    func markdown() {
        #expect(Self.markdownExamples.count >= 10, "the README and docs/guide.md hold ten or more examples")
        for example in Self.markdownExamples {
            #expect(Self.home(of: example) != nil, "\(example): its lines are not, in order, in any Swift file: hold it in a test")
        }
    }

    @Test("each Swift example in a doc comment is code in a compiled file")
    func docComments() {
        #expect(Self.docCommentExamples.count >= 10, "the sources' doc comments hold ten or more examples")
        for example in Self.docCommentExamples {
            #expect(Self.home(of: example) != nil, "\(example): its lines are not, in order, in any Swift file: hold it in a test")
        }
    }

    @Test("an example whose line is nowhere, or whose lines are out of order, has no home")
    func theCheckCanFail() throws {
        // Made here, so that no file holds its line.
        let nowhere = "let " + "example" + "Nowhere = " + String(UInt64.random(in: 1...UInt64.max))
        #expect(Self.home(of: Example(file: "x.md", line: 1, lines: [nowhere])) == nil)
        let shown = try #require(Self.markdownExamples.first { $0.lines.count >= 2 })
        #expect(Self.home(of: shown) != nil)
        #expect(Self.home(of: Example(file: "x.md", line: 1, lines: shown.lines.reversed())) == nil, "\(shown.lines)")
        #expect(Self.pieces(of: "[DirectCommand(.fault), /* ... */]") == ["[DirectCommand(.fault),", "]"])
        #expect(Self.pieces(of: "s.on(.push) // ... and more") == ["s.on(.push)"])
    }
}
