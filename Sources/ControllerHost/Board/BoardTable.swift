/// A TOML table being read, together with the key path that leads to it, so every complaint can
/// say exactly where in the file it is.
///
/// Each getter returns nil for an absent key (the caller supplies the default or reports it
/// missing) and throws for a present key of the wrong type or shape.
package struct BoardTable {
    package let document: TOMLDocument
    package let id: TOMLDocument.TableID
    /// Dotted path of this table; empty for the document root.
    package let path: String
    package let file: String

    package var table: TOMLTable { document.tables[id] }

    package init(document: TOMLDocument, id: TOMLDocument.TableID, path: String, file: String) {
        self.document = document
        self.id = id
        self.path = path
        self.file = file
    }

    package func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package func error(at key: String, _ reason: String, hint: String? = nil) -> BoardFileError {
        BoardFileError(file: file, location: .keyPath(keyPath(key)), reason: reason, hint: hint)
    }

    /// Refuses any key not in `allowed`: a misspelt optional key would otherwise be ignored and
    /// its default used without a word. Keys are taken in the order the file gives them, so of
    /// two misspelt keys the first in the file is named.
    package func rejectUnknownKeys(_ allowed: [String], kind: String) throws(BoardFileError) {
        for key in table.keys where !allowed.contains(key) {
            let known = "known \(kind)s: \(allowed.joined(separator: ", "))"
            throw error(at: key, "unknown \(kind) \"\(key.bounded)\"",
                        hint: Suggestion.didYouMean(key, in: allowed).map { "\($0) \(known)" } ?? known)
        }
    }

    package func subtable(_ key: String, example: String) throws(BoardFileError) -> BoardTable? {
        guard let value = table[key] else { return nil }
        guard let child = value.table else {
            throw error(at: key, "expected a table, got \(Self.describe(value))",
                        hint: "write it as a section: \(example)")
        }
        return BoardTable(document: document, id: child, path: keyPath(key), file: file)
    }

    package func string(_ key: String, example: String) throws(BoardFileError) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else {
            throw error(at: key, "expected a string, got \(Self.describe(value))", hint: "for example \(key) = \(example)")
        }
        guard !string.isEmpty else {
            throw error(at: key, "must not be empty", hint: "for example \(key) = \(example)")
        }
        return string
    }

    package func bool(_ key: String) throws(BoardFileError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let bool = value.bool else {
            throw error(at: key, "expected true or false, got \(Self.describe(value))", hint: "booleans are unquoted")
        }
        return bool
    }

    package func integer(_ key: String, in range: ClosedRange<Int>) throws(BoardFileError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let integer = value.int else {
            throw error(at: key, "expected an integer, got \(Self.describe(value))",
                        hint: "write a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        guard range.contains(integer) else {
            throw error(at: key, "\(integer) is out of range",
                        hint: "write a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return integer
    }

    /// One of `T`'s raw values; a near miss gets a "did you mean".
    package func choice<T: RawRepresentable & CaseIterable>(_ key: String, of _: T.Type) throws(BoardFileError) -> T?
    where T.RawValue == String {
        try choice(key, among: T.allCases.map(\.rawValue)).flatMap(T.init(rawValue:))
    }

    /// One of the words `allowed`; a near miss gets a "did you mean".
    package func choice(_ key: String, among allowed: [String]) throws(BoardFileError) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else {
            throw error(at: key, "expected a string, got \(Self.describe(value))",
                        hint: "write one of \(allowed.quotedList), in quotes")
        }
        guard allowed.contains(string) else {
            throw error(at: key, "\"\(string.bounded)\" is not one of \(allowed.quotedList)",
                        hint: Suggestion.didYouMean(string, in: allowed))
        }
        return string
    }

    /// Whether a zero length is accepted for a duration.
    package enum Zero { case allowed, refused }

    /// A duration string; `example` (the key's default, as written in a file) shows the form.
    package func duration(_ key: String, zero: Zero, limit: Duration, example: String) throws(BoardFileError) -> Duration? {
        let example = "\(key) = \"\(example)\""
        let shape = "write a number and a unit (ns, us, ms, s) in quotes, e.g. \(example)"
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            throw error(at: key, "expected a duration string, got \(Self.describe(value))", hint: shape)
        }
        if text.hasPrefix("-") {
            throw error(at: key, "\"\(text.bounded)\" is negative", hint: "durations are lengths of time, 0 or more")
        }
        let number = text.prefix(while: { $0.isASCIIDigit || $0 == "." })
        let unit = text[number.endIndex...]
        guard let exponent = Self.unitExponents[String(unit)] else {
            let reason = DecimalDuration.unitProblem(text)
            throw error(at: key, reason, hint: shape)
        }
        let duration: Duration
        switch DecimalDuration.parse(number, unitExponent: exponent, limit: limit) {
        case .success(let parsed): duration = parsed
        case .failure(.notADecimal): throw error(at: key, "\"\(text.bounded)\" is not a duration", hint: shape)
        case .failure(.finerThanNanoseconds):
            throw error(at: key, "\"\(text.bounded)\" is finer than a nanosecond", hint: "round it to whole nanoseconds")
        case .failure(.tooLarge):
            throw error(at: key, "\"\(text.bounded)\" is too long", hint: "\(key) is at most \(TimeLimits.describe(limit))")
        }
        if zero == .refused, duration == .zero {
            throw error(at: key, "must be longer than zero", hint: "for example \(example)")
        }
        return duration
    }

    private static let unitExponents = ["ns": 0, "us": 3, "ms": 6, "s": 9]

    /// `string "yes"`, `integer 17`, `a table` — the offending value as the file spells it.
    package static func describe(_ value: TOMLValue) -> String {
        switch value {
        case .table: "a table"
        case .array: "an array"
        case .string(let string): "string \"\(string.bounded)\""
        case .integer(let integer): "integer \(integer)"
        case .float(let double): "floating-point number \(String(double).bounded)"
        case .bool(let bool): "bool \(bool)"
        }
    }
}
