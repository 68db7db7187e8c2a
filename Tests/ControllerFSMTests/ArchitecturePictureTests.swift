import ControllerTestSupport
import Foundation
import Testing

/// docs/design.md's picture of the targets and their arrows is Package.swift's: every target
/// that is not a test's, and every dependency between two of them, none missing and none extra.
/// On a difference the test prints the picture as it should be, to paste in.
@Suite("docs/design.md's picture of the targets is Package.swift's")
struct ArchitecturePictureTests {
    /// The line before the picture's code block in docs/design.md.
    static let marker = "<!-- the targets and their dependencies: ArchitecturePictureTests keeps this equal to Package.swift -->"

    struct Dependency: Hashable, Comparable {
        var from: String
        var to: String
        static func < (a: Self, b: Self) -> Bool { (a.from, a.to) < (b.from, b.to) }
        var line: String { "    \(from) --> \(to)" }
    }

    /// The targets that are not tests', and their dependencies on each other, read from the
    /// manifest's text: each `.target(`/`.executableTarget(` entry's name, and the quoted names
    /// of other targets up to the next entry (products of other packages are not targets here).
    static func manifestGraph(_ manifest: String) -> (targets: Set<String>, dependencies: Set<Dependency>) {
        let code = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
        let entry = /\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"/
        let matches = code.matches(of: entry)
        var entries: [(kind: Substring, name: String, body: Substring)] = []
        for (index, match) in matches.enumerated() {
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : code.endIndex
            entries.append((match.output.1, String(match.output.2), code[match.range.upperBound..<end]))
        }
        let targets = Set(entries.filter { $0.kind != "testTarget" }.map(\.name))
        var dependencies: Set<Dependency> = []
        for (kind, name, body) in entries where kind != "testTarget" {
            for quoted in body.matches(of: /"([^"]+)"/) where targets.contains(String(quoted.output.1)) {
                let before = body[..<quoted.range.lowerBound].suffix(16)
                if before.hasSuffix("package: ") || before.hasSuffix(".product(name: ") { continue }
                dependencies.insert(Dependency(from: name, to: String(quoted.output.1)))
            }
        }
        return (targets, dependencies)
    }

    /// The picture's arrows, and the targets it names.
    static func pictureGraph(_ design: String) -> (targets: Set<String>, dependencies: Set<Dependency>)? {
        guard let start = design.range(of: marker) else { return nil }
        let rest = design[start.upperBound...]
        guard let open = rest.range(of: "```mermaid\n"), let close = rest[open.upperBound...].range(of: "```") else { return nil }
        var targets: Set<String> = []
        var dependencies: Set<Dependency> = []
        for line in rest[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let parts = line.split(separator: " ").filter { !$0.isEmpty }
            if parts.count == 3, parts[1] == "-->" {
                dependencies.insert(Dependency(from: String(parts[0]), to: String(parts[2])))
                targets.formUnion([String(parts[0]), String(parts[2])])
            } else if parts.count == 1, parts[0] != "graph" {
                targets.insert(String(parts[0]))
            }
        }
        return (targets, dependencies)
    }

    static func picture(targets: Set<String>, dependencies: Set<Dependency>) -> String {
        let linked = Set(dependencies.flatMap { [$0.from, $0.to] })
        let alone = targets.subtracting(linked).sorted().map { "    \($0)" }
        return (["```mermaid", "graph BT"] + alone + dependencies.sorted().map(\.line) + ["```"]).joined(separator: "\n")
    }

    @Test("every target and dependency of Package.swift is in the picture, and nothing else")
    func pictureIsTheManifest() throws {
        let root = repositoryRoot
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let design = try String(contentsOf: root.appendingPathComponent("docs/design.md"), encoding: .utf8)
        let expected = Self.manifestGraph(manifest)
        #expect(expected.targets.count > 10, "only \(expected.targets.count) targets read from Package.swift")
        let picture = Self.pictureGraph(design)
        try #require(picture != nil, "docs/design.md has no picture after \(Self.marker)")
        let shown = picture!
        let missing = expected.dependencies.subtracting(shown.dependencies).sorted().map(\.line)
        let extra = shown.dependencies.subtracting(expected.dependencies).sorted().map(\.line)
        let same = missing.isEmpty && extra.isEmpty && shown.targets == expected.targets
        #expect(
            same,
            """
            docs/design.md's picture differs from Package.swift: missing \(missing), extra \(extra), \
            targets missing \(expected.targets.subtracting(shown.targets).sorted()), extra \(shown.targets.subtracting(expected.targets).sorted()). \
            As it should be:
            \(Self.picture(targets: expected.targets, dependencies: expected.dependencies))
            """)
    }

    @Test("the manifest reader sees targets, their dependencies on each other, and nothing of other packages' or tests'")
    func readerReadsAManifest() {
        let manifest = """
            // .target(name: "Commented", dependencies: ["Core"]),
            targets: [
                .target(name: "Core"),
                .target(
                    name: "Port",
                    dependencies: ["Core", .product(name: "Logging", package: "swift-log")],
                    resources: [.embedInCode("Resources/Core")]
                ),
                .executableTarget(name: "tool", dependencies: ["Port", .product(name: "Core", package: "other")]),
                .testTarget(name: "PortTests", dependencies: ["Port"]),
            ]
            """
        let graph = Self.manifestGraph(manifest)
        #expect(graph.targets == ["Core", "Port", "tool"])
        #expect(graph.dependencies == [Dependency(from: "Port", to: "Core"), Dependency(from: "tool", to: "Port")])
    }
}
