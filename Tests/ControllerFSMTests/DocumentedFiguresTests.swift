import ControllerTestSupport
import Foundation
import Testing

/// Figures the docs state that a command measures are kept equal to what it measured: the prose
/// of docs/performance.md to its own benchmark table, the barrier's size to its files, the
/// Swift version the README names to Package.swift's. A figure that drifts fails here, naming
/// the file, what it says and what it should say.
@Suite("The docs' figures agree with what they describe")
struct DocumentedFiguresTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// One row of docs/performance.md's benchmark table.
    struct BenchRow {
        var nanoseconds: Double
        var timesC: Double
        var instructions: Double
        var instructionsTimesC: Double
    }

    /// The table's rows by machine and implementation.
    static func benchTable() throws -> [String: [String: BenchRow]] {
        var rows: [String: [String: BenchRow]] = [:]
        for line in try text("docs/performance.md").split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 10, let nanoseconds = Double(cells[2]), let instructions = Double(cells[7]),
                let timesC = Double(cells[6].dropLast()), let instructionsTimesC = Double(cells[8].dropLast())
            else { continue }
            rows[cells[0], default: [:]][cells[1]] = BenchRow(
                nanoseconds: nanoseconds, timesC: timesC, instructions: instructions, instructionsTimesC: instructionsTimesC)
        }
        return rows
    }

    static func figure(_ value: Double, decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

    @Test("docs/performance.md's paragraphs say what its table measured")
    func performanceProseMatchesTable() throws {
        let prose = try Self.text("docs/performance.md").replacingOccurrences(of: "\n  ", with: " ")
        let table = try Self.benchTable()
        let turnstile = try #require(table["turnstile"], "no turnstile rows in docs/performance.md's table")
        let complex = try #require(table["complex"], "no complex rows in docs/performance.md's table")
        let bare = try #require(turnstile["controllerfsm"]), full = try #require(turnstile["controllerfsm-full"])
        let cSwitch = try #require(turnstile["c-switch"]), dictionary = try #require(turnstile["closure-dictionary"])
        let complexBare = try #require(complex["controllerfsm"])
        let expected = [
            "costs what the C switch does (\(Self.figure(complexBare.timesC, decimals: 2))× in this run)",
            "The turnstile** costs \(Self.figure(bare.timesC, decimals: 2))× the C switch in wall time "
                + "(\(Self.figure(bare.nanoseconds, decimals: 2)) ns against \(Self.figure(cSwitch.nanoseconds, decimals: 2)); "
                + "\(Self.figure(bare.instructionsTimesC, decimals: 2))× in instructions, \(Self.figure(bare.instructions, decimals: 1)) "
                + "against \(Self.figure(cSwitch.instructions, decimals: 1)))",
            "ControllerFSM is \(Self.figure(dictionary.nanoseconds / bare.nanoseconds, decimals: 1))× faster",
            "adds about \(Int((full.instructions - bare.instructions).rounded())) instructions",
            "≤ 100 instructions bare (met, \(Self.figure(bare.instructions, decimals: 1))), "
                + "≤ 150 full (\(Self.figure(full.instructions, decimals: 1)), missed",
        ]
        for sentence in expected {
            let says = prose.contains(sentence)
            #expect(says, "docs/performance.md should say \"\(sentence)\", as its table measured")
        }
    }

    /// Lines of Swift in the barrier's `Sources/`.
    static func barrierLines(_ names: [String]? = nil) throws -> Int {
        let sources = repositoryRoot.appendingPathComponent("Examples/ParkingBarrier/Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        var lines = 0
        var found: Set<String> = []
        for file in files {
            let relative = file.path.replacingOccurrences(of: sources.path + "/", with: "")
            let name = file.lastPathComponent
            if let names, !names.contains(name), !names.contains(relative) { continue }
            found.insert(names?.contains(relative) == true ? relative : name)
            lines += try String(contentsOf: file, encoding: .utf8).reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
        }
        if let names { #expect(Set(names) == found, "the barrier's Sources/ has no \(Set(names).subtracting(found).sorted())") }
        return lines
    }

    @Test("the barrier's size, where the README and the guide state it, is its files' (wc -l)")
    func barrierSize() throws {
        let total = try Self.barrierLines()
        let readme = try Self.text("README.md").replacingOccurrences(of: "\n", with: " ")
        let readmeSays = readme.contains("`Examples/ParkingBarrier` (\(total) lines of Swift)")
        #expect(readmeSays, "README.md should say the barrier has \(total) lines of Swift")
        let guide = try Self.text("docs/guide.md")
        let guideSays = guide.contains("`wc -l`: \(total) lines of Swift in `Sources/`")
        #expect(guideSays, "docs/guide.md should say \(total) lines of Swift")
        // The guide's table of the barrier's files: each row's lines are its files'.
        var rows = 0
        for line in guide.split(separator: "\n") where line.hasPrefix("| `") && line.contains(".swift`") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, let stated = Int(cells[1]) else { continue }
            let names = cells[0].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                .filter { $0.hasSuffix(".swift") && $0 != "Package.swift" }
            guard !names.isEmpty else { continue }
            rows += 1
            let counted = try Self.barrierLines(names)
            #expect(stated == counted, "docs/guide.md's row for \(names.joined(separator: ", ")) says \(stated) lines; wc -l counts \(counted)")
        }
        #expect(rows >= 5, "docs/guide.md's table of the barrier's files was not found")
    }

    @Test("the README's Swift version is Package.swift's tools version")
    func swiftVersion() throws {
        let manifest = try Self.text("Package.swift")
        let tools = try #require(manifest.split(separator: "\n").first?.split(separator: ":").last.map(String.init))
        let readme = try Self.text("README.md").replacingOccurrences(of: "\n", with: " ")
        let readmeSays = readme.contains("Swift \(tools) or later (`swift-tools-version:\(tools)`")
        #expect(readmeSays, "README.md should name Swift \(tools), Package.swift's tools version")
    }
}
