import ControllerTestSupport
import Foundation

/// What in a tree of files refers to a file that is not in it:
///   1. a relative link of a Markdown file (`[text](path)`, `![alt](path)`) to no file or folder
///      (from the linking file's folder), or to a heading (`file.md#heading`, `#heading`) its
///      file does not have, as GitHub makes a heading's anchor;
///   2. a `docs/NAME` (or `docs/FOLDER/NAME`) mention of no file in docs/;
///   3. a citation of the design notes the project was started from (their name is built below,
///      so this file cites nothing): what a user or the next engineer needs is written in the
///      repository;
///   4. a path into the repository (`scripts/…`, `boards/…`, `packaging/…`, `Sources/…`,
///      `Tests/…`, `Examples/…`, `AllocationTests/…`, `Benchmarks/…`, `Fuzz/…`, `.ci/…`, ending
///      in a file's extension) that is no file from the root, from the root of the package the
///      mentioning file is in, or from its folder. A file named `x.EXT` is an example in a
///      message, not a reference.
struct RepositoryReferences {
    /// The notes' name, not written whole here.
    static let designNotes = "DESIGN" + ".md"

    let root: URL
    /// The files looked at, relative to `root`.
    let files: [String]

    /// The repository's tracked files (`git ls-files`); outside a git checkout (an unpacked
    /// release), every file under `root` but the build folders'.
    static func files(in root: URL) -> [String] {
        if let tracked = try? tracked(in: root), !tracked.isEmpty { return tracked }
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".build") || $0 == ".git" }) {
                walker.skipDescendants()
                continue
            }
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(relative) }
        }
        return found
    }

    private static func tracked(in root: URL) throws -> [String] {
        let (status, listing) = try Process.output(of: "/usr/bin/env", ["git", "-C", root.path, "ls-files", "-z"])
        guard status == 0 else { return [] }
        return String(decoding: listing, as: UTF8.self).split(separator: "\0").map(String.init)
    }

    /// Each dangling reference, as `FILE: what it refers to`, sorted.
    func problems() -> [String] {
        var problems: [String] = []
        for path in files where !path.hasSuffix(".png") && !path.hasSuffix(".sqlite") && !path.hasSuffix(".bin") && !path.contains("/Fixtures/") {
            guard exists(path), let data = FileManager.default.contents(atPath: url(path).path),
                  let text = String(data: data, encoding: .utf8) else { continue }
            if text.contains(Self.designNotes) {
                problems.append("\(path): cites \(Self.designNotes), which is not in the repository: say it here, or point to docs/")
            }
            if path.hasSuffix(".md") {
                for target in Self.matches(Self.link, in: text) where !Self.hasScheme(target) {
                    let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    let file = parts[0]
                    let anchor = parts.count > 1 ? parts[1] : ""
                    let resolved = file.isEmpty ? path : Self.normalized(Self.folder(of: path) + file)
                    if !exists(resolved) {
                        problems.append("\(path): links to \(target), which is not in the repository")
                    } else if !anchor.isEmpty && resolved.hasSuffix(".md") && !anchors(resolved).contains(anchor) {
                        problems.append("\(path): links to \(target), but \(resolved) has no heading whose anchor is #\(anchor)")
                    }
                }
            }
            for mention in Set(Self.matches(Self.docsMention, in: text)) where !exists(mention) {
                problems.append("\(path): mentions \(mention), which is not in the repository")
            }
            for mention in Set(Self.matches(Self.pathMention, in: text)) where !(mention.split(separator: "/").last ?? "").hasPrefix("x.") {
                let places = [mention, packageRoot(of: path) + mention, Self.folder(of: path) + mention]
                if !places.contains(where: exists) {
                    problems.append("\(path): mentions \(mention), which is not in the repository")
                }
            }
        }
        return problems.sorted()
    }

    static let link = regex(#"!?\[[^\]]*\]\(([^)\s]+)\)"#)
    static let docsMention = regex(#"(?<![\w./-])(docs/(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_.-]+\.(?:md|png|svg|html))"#)
    static let pathMention = regex(
        #"(?<![\w./$-])((?:scripts|boards|packaging|Sources|Tests|Examples|AllocationTests|Benchmarks|Fuzz|\.ci)/"#
            + #"(?:[A-Za-z0-9_+-]+/)*[A-Za-z0-9_.+-]+\.(?:sh|py|swift|toml|json|txt|conf|md|c|h))\b"#)
    static let heading = regex(#"^#{1,6}\s+(.*?)\s*#*\s*$"#)

    /// The anchors GitHub gives the headings of the Markdown file `path` (outside code blocks).
    func anchors(_ path: String) -> Set<String> {
        guard let text = try? String(contentsOf: url(path), encoding: .utf8) else { return [] }
        var found: Set<String> = []
        var seen: [String: Int] = [:]
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") || line.hasPrefix("~~~") {
                inCode.toggle()
                continue
            }
            guard !inCode, let title = Self.matches(Self.heading, in: line).first else { continue }
            let slug = String(title.lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" || $0 == " "
            }.map(Character.init)).replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            found.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return found
    }

    /// The folder of the nearest Package.swift above `path`, with a trailing `/` ("" for the
    /// root's).
    func packageRoot(of path: String) -> String {
        var folder = Self.folder(of: path)
        while !folder.isEmpty {
            if exists(folder + "Package.swift") { return folder }
            folder = Self.folder(of: String(folder.dropLast()))
        }
        return ""
    }

    func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: url(relative).path) }

    /// `a/b/` of `a/b/c.md`; "" for a file at the root.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// `path` with `.` and `..` taken out.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    static func hasScheme(_ target: String) -> Bool {
        guard let colon = target.firstIndex(of: ":") else { return false }
        let scheme = target[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLowercase && $0.isLetter }
    }

    static func regex(_ pattern: String) -> NSRegularExpression {
        // The patterns are this file's own: a bad one is a mistake here.
        try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    }

    /// The first capture group of every match of `expression` in `text`.
    static func matches(_ expression: NSRegularExpression, in text: String) -> [String] {
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
