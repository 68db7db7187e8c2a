import ControllerTestSupport
import Foundation
import Testing

/// Nothing in the repository refers to a file that is not in it (what counts as a reference:
/// `RepositoryReferences`).
@Suite struct RepositoryReferencesTests {
    @Test func everyReferenceIsToAFileInTheRepository() throws {
        let files = RepositoryReferences.files(in: repositoryRoot)
        #expect(files.count > 100, "only \(files.count) files found in \(repositoryRoot.path)")
        let problems = RepositoryReferences(root: repositoryRoot, files: files).problems()
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func eachKindOfDanglingReferenceIsNamed() throws {
        // The tree's paths are put together from these, so that this file mentions none of them
        // (the check above reads it too).
        let (docs, scripts, examples, boards) = ("docs", "scripts", "Examples", "boards")
        let tree = try TemporaryDirectory()
        for folder in [docs, scripts, "\(examples)/Gate/\(boards)"] {
            try FileManager.default.createDirectory(at: tree.url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let files = [
            "README.md", "\(docs)/guide.md", "\(scripts)/test.sh", "\(examples)/Gate/Package.swift", "\(examples)/Gate/\(boards)/sim.toml",
            "\(examples)/Gate/README.md",
        ]
        _ = try tree.file(files[1], "# The Guide\n\n## Two words\n\n```\n# not a heading\n```\n")
        _ = try tree.file(files[2], "#!/bin/sh\n")
        _ = try tree.file(files[3], "// a package\n")
        _ = try tree.file(files[4], "")
        _ = try tree.file("README.md", """
            [fine](\(docs)/guide.md#two-words) [web](https://example.org/x.md) [self](#the-readme)
            [gone](\(docs)/nope.md) [no heading](\(docs)/guide.md#not-a-heading)
            Run \(scripts)/test.sh, not \(scripts)/gone.sh; see \(docs)/missing.md; x.toml and \(scripts)/x.sh are examples.
            As \(RepositoryReferences.designNotes) says.
            # The README
            """)
        _ = try tree.file(files[5], "Its \(boards)/sim.toml, and \(boards)/other.toml.\n")
        let problems = RepositoryReferences(root: tree.url, files: files).problems()
        #expect(problems == [
            "\(examples)/Gate/README.md: mentions \(boards)/other.toml, which is not in the repository",
            "README.md: cites \(RepositoryReferences.designNotes), which is not in the repository: say it here, or point to docs/",
            "README.md: links to \(docs)/guide.md#not-a-heading, but \(docs)/guide.md has no heading whose anchor is #not-a-heading",
            "README.md: links to \(docs)/nope.md, which is not in the repository",
            "README.md: mentions \(docs)/missing.md, which is not in the repository",
            "README.md: mentions \(docs)/nope.md, which is not in the repository",
            "README.md: mentions \(scripts)/gone.sh, which is not in the repository",
        ])
    }
}
