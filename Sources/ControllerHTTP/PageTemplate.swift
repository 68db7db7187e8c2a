/// The text of a page's file (Pages/: its script or its style), which the package compiles into
/// the module (`.embedInCode` in Package.swift): the daemons ship as single static binaries, with
/// no resource bundle beside them to read a file from at run time.
///
/// A file may have holes, where each page puts what only it knows: `/*{name*/sample/*}*/`. The
/// page replaces the whole span, markers and sample, with its text for `name`; the sample is what
/// the file has standing alone (the turnstile's value, or the code a page may leave out), so that
/// an editor, a linter and the tests' JavaScript parser read the file as JavaScript (or CSS) as
/// it is. The markers are comments, but a hole may also sit inside a string literal, where they
/// are the string's text: the file still parses.
enum PageTemplate {
    /// What a page puts in a hole.
    enum Fill: Sendable {
        /// The sample, as the file has it: code a page may leave out, kept.
        case sample
        /// Nothing: code a page may leave out, left out.
        case nothing
        case text(String)
    }

    /// A file's bytes as text, less the newline that ends the file: the page goes on right after
    /// it (a `</style>`, a `</script>` or the next file), as it did when the text was Swift's.
    static func text(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// `file`'s text with each hole filled from `fills`. The files are constants of the build and
    /// the tests render every page: a hole without a fill, a fill without a hole or a hole not
    /// closed is a defect of the build, not of anything a daemon reads.
    static func fill(_ file: String, _ fills: [String: Fill], file name: StaticString) -> String {
        var result = ""
        var rest = Substring(file)
        var used = Set<String>()
        while let open = rest.firstRange(of: "/*{") {
            result += rest[..<open.lowerBound]
            rest = rest[open.upperBound...]
            guard let nameEnd = rest.firstRange(of: "*/"), let close = rest[nameEnd.upperBound...].firstRange(of: "/*}*/") else {
                preconditionFailure("\(name): a hole that does not close")
            }
            let hole = String(rest[..<nameEnd.lowerBound])
            guard let fill = fills[hole] else { preconditionFailure("\(name): the hole \"\(hole)\" has no fill") }
            used.insert(hole)
            switch fill {
            case .sample: result += rest[nameEnd.upperBound..<close.lowerBound]
            case .nothing: break
            case .text(let text): result += text
            }
            rest = rest[close.upperBound...]
        }
        precondition(used == Set(fills.keys), "\(name): fills without a hole: \(Set(fills.keys).subtracting(used).sorted())")
        return result + rest
    }
}
