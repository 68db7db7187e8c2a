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
}
