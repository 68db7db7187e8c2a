/// Why a TOML text was refused, and where: 1-based line, and column in characters (as an editor
/// counts them; a CR LF line break is placed at its LF).
package struct TOMLSyntaxError: Error, Equatable, Sendable {
    package var line: Int
    package var column: Int
    package var reason: String
    /// nil where the reason says all there is to say.
    package var hint: String?

    package init(line: Int, column: Int, reason: String, hint: String?) {
        (self.line, self.column, self.reason, self.hint) = (line, column, reason, hint)
    }
}

/// The TOML 1.0 that board files need, read from UTF-8 bytes without Foundation: comments, bare
/// and quoted keys, dotted keys, `[table]` headers, basic and literal strings (single- and
/// multi-line), integers (decimal, hex, octal, binary), floats (with `inf` and `nan`),
/// booleans, arrays and inline tables. Dates, times and arrays of tables (`[[…]]`) are refused
/// by line and column, never misread.
///
/// The reader descends once per array or inline table, and a key's parts are counted, both up
/// to `maxNesting`: no input can run it out of stack, and everything it builds is at most a
/// few times the input's size. Messages keep the words of the library it replaces (toml++
/// through TOMLKit) where tests and users know them: "error while parsing value: could not
/// determine value type", "cannot redefine existing table 'inputs.coin'".
package struct TOMLReader {
    private let bytes: [UInt8]
    private let maxNesting: Int
    private let nestingHint: String
    private var offset = 0
    private var document = TOMLDocument()

    /// Reads `text`; `maxNesting` bounds both arrays and inline tables within one another and the
    /// parts of one key, and `nestingHint` is the hint given past it.
    package static func read(_ text: String, maxNesting: Int, nestingHint: String) throws(TOMLSyntaxError) -> TOMLDocument {
        // TOML's own rule, checked first so that every byte the reader sees may stand.
        if let refusal = TextCharacters.check(text) {
            throw TOMLSyntaxError(line: refusal.line, column: refusal.column, reason: refusal.reason, hint: refusal.hint)
        }
        var reader = TOMLReader(bytes: Array(text.utf8), maxNesting: maxNesting, nestingHint: nestingHint)
        do throws(Failure) {
            try reader.readDocument()
        } catch {
            let (line, column) = reader.position(of: error.offset)
            throw TOMLSyntaxError(line: line, column: column, reason: error.reason, hint: error.hint)
        }
        return reader.document
    }

    private init(bytes: [UInt8], maxNesting: Int, nestingHint: String) {
        (self.bytes, self.maxNesting, self.nestingHint) = (bytes, maxNesting, nestingHint)
    }

    /// A refusal placed by byte offset; turned into line and column once, when thrown out.
    private struct Failure: Error {
        var offset: Int
        var reason: String
        var hint: String?
    }

    private struct KeyPart {
        var name: String
        var offset: Int
    }

    private static let keyHint = "keys are letters, digits, - and _ (or in quotes); a [table] name is keys joined by dots"
    private static let valueTypeHint = "text values need double quotes, e.g. bias = \"pull-up\""
    private static let redefinitionHint = "each section and key may appear only once"
    private static let escapesHint = #"the escapes are \b \t \n \f \r \" \\ \uXXXX and \UXXXXXXXX"#
    private static let numberHint = "integers are written like 17, -3, 1_000 or 0x1F; floats like 1.5 or 6e-3"

    // MARK: Lines

    private mutating func readDocument() throws(Failure) {
        var table = TOMLDocument.root
        var path: [String] = []
        while true {
            skipBlanks()
            guard let byte = peek() else { return }
            if byte == ASCII.hash {
                skipComment()
            } else if atNewline {
                skipNewline()
            } else if byte == ASCII.openBracket {
                (table, path) = try readHeader()
                try endLine(what: .header)
            } else {
                try readKeyValue(into: table, path: path, depth: 0)
                try endLine(what: .keyValue)
            }
        }
    }

    private enum LineKind { case header, keyValue }

    /// After a header or key-value pair: blanks, a comment, then the line's end.
    private mutating func endLine(what: LineKind) throws(Failure) {
        skipBlanks()
        if peek() == ASCII.hash { skipComment() }
        guard peek() != nil else { return }
        guard atNewline else {
            switch what {
            case .header:
                throw Failure(offset: offset, reason: "nothing but a comment may follow a [table] name on its line",
                              hint: "write the section's keys on the lines after it")
            case .keyValue:
                throw Failure(offset: offset, reason: "error while parsing key-value pair: expected the end of the line after the value, saw \(saw(at: offset))",
                              hint: "write one key = value per line; a comment starts with #")
            }
        }
        skipNewline()
    }

    /// `[a.b]`: makes `a` implicitly where it is missing and defines `b`, once.
    private mutating func readHeader() throws(Failure) -> (TOMLDocument.TableID, [String]) {
        let start = offset
        offset += 1
        if peek() == ASCII.openBracket {
            throw Failure(offset: start, reason: "arrays of tables ([[…]]) are not supported in board files",
                          hint: "write each section as a [table] of its own")
        }
        let keys = try readKey(inHeader: true)
        guard peek() == ASCII.closeBracket else { throw keyNotEnded(inHeader: true) }
        offset += 1
        var table = TOMLDocument.root
        for (index, key) in keys.enumerated() {
            let isLast = index == keys.count - 1
            guard let existing = document.tables[table][key.name] else {
                table = addTable(named: key.name, to: table, origin: isLast ? .header : .implicit)
                continue
            }
            guard let child = existing.table, document.tables[child].origin != .inline,
                  !isLast || document.tables[child].origin == .implicit else {
                throw redefinition(of: existing, at: keys[...index].map(\.name), offset: start, in: "table header")
            }
            if isLast { document.tables[child].origin = .header }
            table = child
        }
        return (table, keys.map(\.name))
    }

    /// `a.b = value` into `table`, whose path is `path`; `depth` is how many arrays and inline
    /// tables hold it.
    private mutating func readKeyValue(into table: TOMLDocument.TableID, path: [String], depth: Int) throws(Failure) {
        let keys = try readKey(inHeader: false)
        guard peek() == ASCII.equals else { throw keyNotEnded(inHeader: false) }
        offset += 1
        skipBlanks()
        let valueStart = offset
        let fullPath = path + keys.map(\.name)
        let value = try readValue(path: fullPath, depth: depth)
        var target = table
        for (index, key) in keys.dropLast().enumerated() {
            guard let existing = document.tables[target][key.name] else {
                target = addTable(named: key.name, to: target, origin: .dotted)
                continue
            }
            // Dotted keys may add to a table that dotted keys made, not to one a header or an
            // inline table defined.
            guard let child = existing.table, [.dotted, .implicit].contains(document.tables[child].origin) else {
                throw redefinition(of: existing, at: path + keys[...index].map(\.name), offset: key.offset, in: "key-value pair")
            }
            document.tables[child].origin = .dotted
            target = child
        }
        let last = keys[keys.count - 1].name
        if let existing = document.tables[target][last] {
            throw redefinition(of: existing, at: fullPath, offset: valueStart, in: "key-value pair")
        }
        document.tables[target].insert(last, value)
    }

    private mutating func addTable(named key: String, to parent: TOMLDocument.TableID, origin: TOMLTable.Origin) -> TOMLDocument.TableID {
        let id = document.tables.count
        document.tables.append(TOMLTable(origin: origin))
        document.tables[parent].insert(key, .table(id))
        return id
    }

    private func redefinition(of existing: TOMLValue, at path: [String], offset: Int, in context: String) -> Failure {
        Failure(offset: offset, reason: "error while parsing \(context): cannot redefine existing \(existing.kindName) '\(Self.written(path).bounded)'",
                hint: Self.redefinitionHint)
    }

    // MARK: Keys

    /// A key's parts, up to the first byte after it and its blanks.
    private mutating func readKey(inHeader: Bool) throws(Failure) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            skipBlanks()
            let start = offset
            guard let byte = peek(), !atNewline else {
                throw Failure(offset: newlineOffset, reason: "a key is missing at the end of the line", hint: Self.keyHint)
            }
            guard byte == ASCII.quote || byte == ASCII.apostrophe || Self.isBare(byte) else {
                throw Failure(offset: start, reason: "\"\(character(at: start))\" cannot start a key or a [table] name", hint: Self.keyHint)
            }
            if parts.count == maxNesting { throw nestedTooDeeply(at: start) }
            let name: String
            if byte == ASCII.quote || byte == ASCII.apostrophe {
                name = try readSingleLineString(escapes: byte == ASCII.quote)
            } else {
                while let next = peek(), Self.isBare(next) { offset += 1 }
                name = String(decoding: bytes[start..<offset], as: UTF8.self)
            }
            parts.append(KeyPart(name: name, offset: start))
            skipBlanks()
            guard peek() == ASCII.dot else { return parts }
            offset += 1
        }
    }

    /// What follows a key where `]` or `=` should.
    private func keyNotEnded(inHeader: Bool) -> Failure {
        if peek() == nil || atNewline {
            return inHeader
                ? Failure(offset: newlineOffset, reason: "error while parsing table header: expected ']', saw \(saw(at: newlineOffset))")
                : Failure(offset: newlineOffset, reason: "error while parsing key-value pair: expected '=', saw \(saw(at: newlineOffset))",
                          hint: "a key is followed by = and a value")
        }
        return Failure(offset: offset, reason: "\"\(character(at: offset))\" cannot follow a key here",
                       hint: inHeader ? "a [table] name is keys joined by dots, then ]" : "a key is followed by = and a value")
    }

    private func nestedTooDeeply(at offset: Int) -> Failure {
        Failure(offset: offset, reason: "nested more than \(maxNesting) levels deep", hint: nestingHint)
    }

    // MARK: Values

    private mutating func readValue(path: [String], depth: Int) throws(Failure) -> TOMLValue {
        guard let byte = peek(), !atNewline, byte != ASCII.hash else {
            throw Failure(offset: newlineOffset, reason: "error while parsing key-value pair: expected a value, saw \(saw(at: newlineOffset))",
                          hint: "write a value after =: a \"string\", a number, true or false")
        }
        switch byte {
        case ASCII.quote, ASCII.apostrophe:
            let escapes = byte == ASCII.quote
            return .string(try starts(with: byte, count: 3) ? readMultiLineString(escapes: escapes) : readSingleLineString(escapes: escapes))
        case ASCII.openBracket:
            guard depth < maxNesting else { throw nestedTooDeeply(at: offset) }
            return try readArray(path: path, depth: depth + 1)
        case ASCII.openBrace:
            guard depth < maxNesting else { throw nestedTooDeeply(at: offset) }
            return try readInlineTable(path: path, depth: depth + 1)
        default:
            return try readScalar()
        }
    }

    /// `[ value, … ]`, over lines and comments if need be.
    private mutating func readArray(path: [String], depth: Int) throws(Failure) -> TOMLValue {
        offset += 1
        var elements: [TOMLValue] = []
        while true {
            skipBlanksCommentsAndNewlines()
            if peek() == nil {
                throw Failure(offset: offset, reason: "error while parsing array: the array is not closed, saw end of file",
                              hint: "close it with ]")
            }
            if peek() == ASCII.closeBracket {
                offset += 1
                return .array(elements)
            }
            elements.append(try readValue(path: path, depth: depth))
            skipBlanksCommentsAndNewlines()
            switch peek() {
            case ASCII.comma:
                offset += 1
            case ASCII.closeBracket:
                offset += 1
                return .array(elements)
            default:
                throw Failure(offset: offset, reason: "error while parsing array: expected ',' or ']', saw \(saw(at: offset))")
            }
        }
    }

    /// `{ key = value, … }` on one line; whole once it closes.
    private mutating func readInlineTable(path: [String], depth: Int) throws(Failure) -> TOMLValue {
        offset += 1
        let table = document.tables.count
        document.tables.append(TOMLTable(origin: .dotted))
        skipBlanks()
        if peek() != ASCII.closeBrace {
            while true {
                skipBlanks()
                if peek() == nil || atNewline { throw inlineTableNotClosed() }
                try readKeyValue(into: table, path: path, depth: depth)
                skipBlanks()
                if peek() == nil || atNewline { throw inlineTableNotClosed() }
                if peek() == ASCII.closeBrace { break }
                guard peek() == ASCII.comma else {
                    throw Failure(offset: offset, reason: "error while parsing inline table: expected ',' or '}', saw \(saw(at: offset))")
                }
                offset += 1
                skipBlanks()
                if peek() == ASCII.closeBrace {
                    throw Failure(offset: offset, reason: "an inline table may not end with a comma", hint: "remove the comma before }")
                }
            }
        }
        offset += 1
        // Every table made inside, its own and those of its dotted keys, is now closed to headers
        // and dotted keys.
        for id in table..<document.tables.count { document.tables[id].origin = .inline }
        return .table(table)
    }

    private func inlineTableNotClosed() -> Failure {
        Failure(offset: newlineOffset, reason: "an inline table { … } must close on the line it opens",
                hint: "write its keys on one line, or as a [table] of their own")
    }

    /// A boolean or a number: the run of bytes that can make one, then what it makes.
    private mutating func readScalar() throws(Failure) -> TOMLValue {
        let start = offset
        while let byte = peek(), Self.isScalarByte(byte) { offset += 1 }
        let token = bytes[start..<offset]
        switch String(decoding: token, as: UTF8.self) {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan": return .float(.nan)
        case "-nan": return .float(-.nan)
        default: break
        }
        guard let first = token.first, Self.isDigit(first) || first == ASCII.plus || first == ASCII.minus else {
            throw Failure(offset: start, reason: "error while parsing value: could not determine value type", hint: Self.valueTypeHint)
        }
        if token.contains(ASCII.colon) || (token.count > 4 && token.prefix(4).allSatisfy(Self.isDigit) && token[start + 4] == ASCII.minus) {
            throw Failure(offset: start, reason: "error while parsing value: dates and times are not supported in board files",
                          hint: "write it as text in double quotes")
        }
        return try TOMLNumber.parse(token).mapError { problem in
            Failure(offset: start, reason: problem.reason, hint: Self.numberHint)
        }.get()
    }

    // MARK: Strings

    /// `"…"` with escapes or `'…'` without, closed on its line.
    private mutating func readSingleLineString(escapes: Bool) throws(Failure) -> String {
        let delimiter = bytes[offset]
        offset += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek(), !atNewline else {
                throw Failure(offset: newlineOffset, reason: "error while parsing string: a string must close on the line it opens",
                              hint: "close it before the line ends, or write a multi-line string between \(String(repeating: Character(Unicode.Scalar(delimiter)), count: 3))")
            }
            if byte == delimiter {
                offset += 1
                return String(decoding: text, as: UTF8.self)
            }
            if escapes && byte == ASCII.backslash {
                try readEscape(into: &text)
            } else {
                text.append(byte)
                offset += 1
            }
        }
    }

    /// `"""…"""` or `'''…'''`: a line break just after the opening is not part of the text,
    /// a backslash at a line's end (with escapes) joins the next non-blank, and up to two
    /// quotes may stand just before the closing three.
    private mutating func readMultiLineString(escapes: Bool) throws(Failure) -> String {
        let open = offset
        let delimiter = bytes[offset]
        offset += 3
        if atNewline { skipNewline() }
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw Failure(offset: open, reason: "error while parsing string: a multi-line string is not closed",
                              hint: "close it with three quotes, as it opens")
            }
            if byte == delimiter {
                var quotes = 0
                while quotes < Self.maxQuotesBeforeClosing + 3, peek(at: offset + quotes) == delimiter { quotes += 1 }
                offset += quotes
                if quotes >= 3 {
                    text.append(contentsOf: repeatElement(delimiter, count: quotes - 3))
                    return String(decoding: text, as: UTF8.self)
                }
                text.append(contentsOf: repeatElement(delimiter, count: quotes))
            } else if atNewline {
                skipNewline()
                text.append(ASCII.lineFeed)
            } else if escapes && byte == ASCII.backslash {
                var next = offset + 1
                while let blank = peek(at: next), blank == ASCII.space || blank == ASCII.tab { next += 1 }
                if isNewline(at: next) {
                    offset = next
                    while let blank = peek(), blank == ASCII.space || blank == ASCII.tab || atNewline {
                        if atNewline { skipNewline() } else { offset += 1 }
                    }
                } else {
                    try readEscape(into: &text)
                }
            } else {
                text.append(byte)
                offset += 1
            }
        }
    }

    /// TOML lets one or two quotes stand just before a multi-line string's closing three.
    private static let maxQuotesBeforeClosing = 2

    /// One escape, from its backslash; refusals are placed at the backslash.
    private mutating func readEscape(into text: inout [UInt8]) throws(Failure) {
        let start = offset
        offset += 1
        guard let letter = peek(), !atNewline else {
            throw Failure(offset: start, reason: "error while parsing string: a backslash must start an escape", hint: Self.escapesHint)
        }
        offset += 1
        switch letter {
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "t"): text.append(ASCII.tab)
        case UInt8(ascii: "n"): text.append(ASCII.lineFeed)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "r"): text.append(ASCII.carriageReturn)
        case ASCII.quote, ASCII.backslash: text.append(letter)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let digits = letter == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<digits {
                guard let byte = peek(), let digit = Self.hexValue(byte) else {
                    throw Failure(offset: start, reason: "error while parsing string: \\\(Character(Unicode.Scalar(letter))) needs \(digits) hexadecimal digits",
                                  hint: Self.escapesHint)
                }
                value = value << 4 | digit
                offset += 1
            }
            // Names go to the kernel and logs as C strings, where a NUL would end them without a word.
            guard value != 0 else {
                throw Failure(offset: start, reason: "an escaped NUL (\\u0000) cannot stand in a string or key",
                              hint: "no board value or key may hold a NUL; remove it")
            }
            guard let scalar = Unicode.Scalar(value) else {
                let written = String(decoding: bytes[start..<offset], as: UTF8.self)
                throw Failure(offset: start, reason: "error while parsing string: \(written) is not a Unicode character",
                              hint: "surrogates (D800 to DFFF) and values past 10FFFF are not characters")
            }
            UTF8.encode(scalar) { text.append($0) }
        default:
            throw Failure(offset: start, reason: "error while parsing string: \\\(character(at: start + 1)) is not an escape TOML knows",
                          hint: Self.escapesHint)
        }
    }

    // MARK: Bytes

    private func peek() -> UInt8? { peek(at: offset) }

    private func peek(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func starts(with byte: UInt8, count: Int) -> Bool {
        (0..<count).allSatisfy { peek(at: offset + $0) == byte }
    }

    /// A line break, LF or CR LF (a CR alone never gets here: ``TextCharacters`` refuses it).
    private func isNewline(at index: Int) -> Bool {
        peek(at: index) == ASCII.lineFeed || (peek(at: index) == ASCII.carriageReturn && peek(at: index + 1) == ASCII.lineFeed)
    }

    private var atNewline: Bool { isNewline(at: offset) }

    /// Where a refusal at a line's end is placed: its LF, even after a CR.
    private var newlineOffset: Int { peek() == ASCII.carriageReturn ? offset + 1 : offset }

    private mutating func skipNewline() {
        if peek() == ASCII.carriageReturn { offset += 1 }
        offset += 1
    }

    private mutating func skipBlanks() {
        while let byte = peek(), byte == ASCII.space || byte == ASCII.tab { offset += 1 }
    }

    /// Up to the line's end, which stays.
    private mutating func skipComment() {
        while peek() != nil, !atNewline { offset += 1 }
    }

    private mutating func skipBlanksCommentsAndNewlines() {
        while true {
            skipBlanks()
            if peek() == ASCII.hash { skipComment() }
            guard atNewline else { return }
            skipNewline()
        }
    }

    /// The character starting at `start`, as a message quotes it.
    private func character(at start: Int) -> String {
        var end = start + 1
        while end < bytes.count, TextCharacters.isContinuation(bytes[end]) { end += 1 }
        return String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
    }

    /// `'x'`, `'\n'` or `end of file`, as toml++ said what it found.
    private func saw(at index: Int) -> String {
        guard index < bytes.count else { return "end of file" }
        return isNewline(at: index) || bytes[index] == ASCII.lineFeed ? #"'\n'"# : "'\(character(at: index))'"
    }

    private func position(of target: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(target, bytes.count)] {
            if byte == ASCII.lineFeed {
                line += 1
                column = 1
            } else if !TextCharacters.isContinuation(byte) {
                column += 1
            }
        }
        return (line, column)
    }

    /// A key path as a file would write it: bare parts bare, others quoted.
    private static func written(_ path: [String]) -> String {
        path.map { part in
            if !part.isEmpty && part.utf8.allSatisfy(isBare) { return part }
            var quoted = "\""
            for character in part {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return quoted + "\""
        }.joined(separator: ".")
    }

    private static func isBare(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == ASCII.minus || byte == UInt8(ascii: "_")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// What a boolean, number, date or time is made of; any other byte ends one.
    private static func isScalarByte(_ byte: UInt8) -> Bool {
        isBare(byte) || byte == UInt8(ascii: "+") || byte == ASCII.dot || byte == ASCII.colon
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// The bytes TOML's grammar is made of.
enum ASCII {
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let hash = UInt8(ascii: "#")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let equals = UInt8(ascii: "=")
    static let comma = UInt8(ascii: ",")
    static let dot = UInt8(ascii: ".")
    static let colon = UInt8(ascii: ":")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let underscore = UInt8(ascii: "_")
    static let zero = UInt8(ascii: "0")
}
