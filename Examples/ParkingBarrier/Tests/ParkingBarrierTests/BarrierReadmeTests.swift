import Foundation
import ParkingBarrier
import Testing

/// docs/guide.md's "Write your own controller" shows the barrier's superstates as
/// `BarrierMachine.swift` has them: the block after `<!-- barrier-machine -->` is in the source,
/// verbatim but for the source's indentation, so it compiles as the barrier does.
@Suite("Parking barrier: the guide's machine excerpt")
struct BarrierReadmeTests {
    @Test("docs/guide.md's barrier machine excerpt is the source's, verbatim")
    func excerptIsTheSource() throws {
        var root = #filePath
        for _ in 0..<5 { root = String(root[..<root.lastIndex(of: "/")!]) }
        let readme = try String(contentsOfFile: root + "/docs/guide.md", encoding: .utf8)
        let source = try String(
            contentsOfFile: root + "/Examples/ParkingBarrier/Sources/ParkingBarrier/BarrierMachine.swift", encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- barrier-machine -->\n```swift\n"), "docs/guide.md has no barrier machine excerpt")
        let end = try #require(readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex))
        let excerpt = readme[marker.upperBound..<end.lowerBound]
        #expect(excerpt.contains("definition.state(.operating)") && excerpt.contains(", in: .operating)"))
        let indented = excerpt.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
        #expect(source.contains(indented), "docs/guide.md's barrier excerpt differs from BarrierMachine.swift")
    }

    @Test("docs/parking-barrier.md, the barrier's specification, shows its current diagram")
    func specificationShowsTheDiagram() throws {
        var root = #filePath
        for _ in 0..<5 { root = String(root[..<root.lastIndex(of: "/")!]) }
        let specification = try String(contentsOfFile: root + "/docs/parking-barrier.md", encoding: .utf8)
        #expect(specification.contains("```mermaid\n" + BarrierMachine.table.mermaid() + "```"),
                "docs/parking-barrier.md's diagram is stale: paste the output of `swift run --package-path Examples/ParkingBarrier barrierd graph`")
    }

    @Test("docs/guide.md's table of the barrier's files states each one's lines, and the total, as they are")
    func fileTableCountsTheLines() throws {
        var root = #filePath
        for _ in 0..<5 { root = String(root[..<root.lastIndex(of: "/")!]) }
        let package = root + "/Examples/ParkingBarrier"
        let guide = try String(contentsOfFile: root + "/docs/guide.md", encoding: .utf8)
        func lines(_ relative: String) throws -> Int {
            try String(contentsOfFile: package + "/" + relative, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        // Rows `| `A.swift`, `B.swift` | N | what |`: N is the sum of the files' lines.
        var rows = 0
        for row in guide.split(separator: "\n") where row.hasPrefix("| `") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let stated = Int(cells[1]) else { continue }
            let names = cells[0].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            // Package.swift at the root; `barrierd/main.swift` under Sources/; the rest the library's.
            let paths = names.map { $0 == "Package.swift" ? $0 : $0.contains("/") ? "Sources/" + $0 : "Sources/ParkingBarrier/" + $0 }
            guard paths.allSatisfy({ FileManager.default.fileExists(atPath: package + "/" + $0) }) else { continue }
            rows += 1
            #expect(try paths.map(lines).reduce(0, +) == stated, "docs/guide.md says \(names) hold \(stated) lines")
        }
        #expect(rows >= 8, "the table's rows were not found in docs/guide.md")
        let sources = try FileManager.default.subpathsOfDirectory(atPath: package + "/Sources").filter { $0.hasSuffix(".swift") }
        let total = try sources.map { try lines("Sources/" + $0) }.reduce(0, +)
        #expect(guide.contains("`wc -l`: \(total) lines of Swift in `Sources/`"), "the barrier has \(total) lines of Swift in Sources/")
    }
}
