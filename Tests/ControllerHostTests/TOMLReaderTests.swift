import PropertyBased
import Testing
import ControllerHost
import ControllerTestSupport

/// The board files' own TOML reader (it replaced TOMLKit): every value kind it reads, every
/// refusal placed by line and column, TOML 1.0's rules on defining tables and keys once, and
/// its bounds: depth, 64-bit integers, and any bytes at all without a crash.
@Suite("TOML reader")
struct TOMLReaderTests {
    static let nesting = 8

    func read(_ text: String) throws(TOMLSyntaxError) -> TOMLDocument {
        try TOMLReader.read(text, maxNesting: Self.nesting, nestingHint: "hint")
    }

    func value(_ text: String, _ path: String...) throws -> TOMLValue {
        try #require(try read(text).value(at: path), "\(path) missing")
    }

    @Test func everyValueKind() throws {
        let text = #"""
            # a comment
            s = "tab\there \u00e9 \U0001F600 \"q\" \\ \b\f\r\n" # after
            l = 'C:\no\escapes'
            ml = """
            one
            two \
               joined ""\"""""
            mll = '''
            raw \n ''it'''''
            "quoted key" = 1
            'literal key' = 2
            bare-key_1 = 3
            i = -1_000
            p = +17
            z = 0
            h = 0xdead_BEEF
            o = 0o17
            b = 0b101
            f = 6.5e-1
            g = -2E+3
            e = 1_000.000_1
            pi = inf
            ni = -inf
            n = nan
            t = true
            u = false
            a = [1, "two", [3.5], { x = 1 }, ]
            multi = [
              1, # one
              2
            ]
            empty = {}
            [tab . "sub"]
            k = 1
            d.e = 2
            it = { p.q = 1, r = 'x' }
            """#
        #expect(try value(text, "s") == .string("tab\there é 😀 \"q\" \\ \u{8}\u{C}\r\n"))
        #expect(try value(text, "l") == .string(#"C:\no\escapes"#))
        // Two quotes, an escaped one, then four: one more in the text, then the closing three.
        #expect(try value(text, "ml") == .string("one\ntwo joined \"\"\"\""))
        #expect(try value(text, "mll") == .string("raw \\n ''it''"))
        #expect(try value(text, "quoted key") == .integer(1))
        #expect(try value(text, "literal key") == .integer(2))
        #expect(try value(text, "bare-key_1") == .integer(3))
        #expect(try value(text, "i") == .integer(-1000))
        #expect(try value(text, "p") == .integer(17))
        #expect(try value(text, "z") == .integer(0))
        #expect(try value(text, "h") == .integer(0xDEAD_BEEF))
        #expect(try value(text, "o") == .integer(15))
        #expect(try value(text, "b") == .integer(5))
        #expect(try value(text, "f") == .float(0.65))
        #expect(try value(text, "g") == .float(-2000))
        #expect(try value(text, "e") == .float(1000.0001))
        #expect(try value(text, "pi") == .float(.infinity))
        #expect(try value(text, "ni") == .float(-.infinity))
        #expect(try value(text, "n").double?.isNaN == true)
        #expect(try value(text, "t") == .bool(true))
        #expect(try value(text, "u") == .bool(false))
        let array = try #require(try value(text, "a").array)
        #expect(array.count == 4)
        #expect(array[0] == .integer(1) && array[1] == .string("two") && array[2] == .array([.float(3.5)]))
        #expect(try value(text, "multi") == .array([.integer(1), .integer(2)]))
        #expect(try value(text, "empty").table != nil)
        #expect(try value(text, "tab", "sub", "k") == .integer(1))
        #expect(try value(text, "tab", "sub", "d", "e") == .integer(2))
        #expect(try value(text, "tab", "sub", "it", "p", "q") == .integer(1))
        #expect(try value(text, "tab", "sub", "it", "r") == .string("x"))
    }

    @Test func keysKeepTheFilesOrder() throws {
        let document = try read("zebra = 1\napple = 2\n[mango]\n[banana]\n")
        #expect(document.tables[TOMLDocument.root].keys == ["zebra", "apple", "mango", "banana"])
    }

    @Test func crlfReadsAsLF() throws {
        #expect(try value("a = \"\"\"\r\nx\r\ny\"\"\"\r\nb = 1\r\n", "a") == .string("x\ny"))
    }

    @Test("TOML 1.0's definitions: a table defined by a header once, implicitly made ones defined later, dotted keys extend only their own")
    func validDefinitions() throws {
        _ = try read("[a.b.c]\n[a]\nx = 1\n[a.b]\ny = 2\n")
        _ = try read("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n")
        _ = try read("inputs.coin.line = 0\ninputs.push.line = 1\n")
    }

    @Test("each refusal is placed by line and column", arguments: [
        // Keys
        ("= 1\n", 1, 1, #""=" cannot start a key"#),
        ("[)\n", 1, 2, #"")" cannot start a key"#),
        ("[]\n", 1, 2, #""]" cannot start a key"#),
        ("[a.]\n", 1, 4, #""]" cannot start a key"#),
        ("[a.\n", 1, 4, "a key is missing at the end of the line"),
        ("x = {=}\n", 1, 6, #""=" cannot start a key"#),
        ("[inputs.cöin]\n", 1, 10, #""ö" cannot follow a key here"#),
        ("a b = 1\n", 1, 3, #""b" cannot follow a key here"#),
        ("[board\nx = 1\n", 1, 7, #"error while parsing table header: expected ']', saw '\n'"#),
        ("[board", 1, 7, "error while parsing table header: expected ']', saw end of file"),
        ("key\n", 1, 4, #"error while parsing key-value pair: expected '=', saw '\n'"#),
        ("[a] x = 1\n", 1, 5, "nothing but a comment may follow a [table] name"),
        ("[[a]]\n", 1, 1, "arrays of tables ([[…]]) are not supported"),
        // Values
        ("x = pull-up\n", 1, 5, "error while parsing value: could not determine value type"),
        ("x = = 1\n", 1, 5, "error while parsing value: could not determine value type"),
        ("x =\n", 1, 4, "error while parsing key-value pair: expected a value"),
        ("x = 1 2\n", 1, 7, "expected the end of the line after the value, saw '2'"),
        ("x = 1979-05-27\n", 1, 5, "dates and times are not supported"),
        ("x = 07:32:00\n", 1, 5, "dates and times are not supported"),
        ("x = 012\n", 1, 5, "has a leading zero"),
        ("x = 1__0\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = _1\n", 1, 5, "could not determine value type"),
        ("x = 1_\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = +0x1\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = 0x\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = 0b102\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = 1.\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = .5\n", 1, 5, "could not determine value type"),
        ("x = 1e\n", 1, 5, "is not an integer or a floating-point number"),
        ("x = 1e999\n", 1, 5, "too large for a floating-point number"),
        ("x = 9223372036854775808\n", 1, 5, "does not fit in 64 bits"),
        ("x = -9223372036854775809\n", 1, 5, "does not fit in 64 bits"),
        ("x = 0xFFFFFFFFFFFFFFFFF\n", 1, 5, "does not fit in 64 bits"),
        ("x = [1 2]\n", 1, 8, "error while parsing array: expected ',' or ']', saw '2'"),
        ("x = [1,\n", 2, 1, "the array is not closed"),
        ("x = { a = 1,\n b = 2 }\n", 1, 13, "an inline table { … } must close on the line it opens"),
        ("x = {\r\n}\n", 1, 7, "an inline table { … } must close on the line it opens"),
        ("x = { a = 1, }\n", 1, 14, "an inline table may not end with a comma"),
        ("x = { a = 1 b = 2 }\n", 1, 13, "expected ',' or '}', saw 'b'"),
        // Strings
        ("x = \"abc\n", 1, 9, "a string must close on the line it opens"),
        ("x = 'abc\n", 1, 9, "a string must close on the line it opens"),
        ("x = \"\"\"abc\n", 1, 5, "a multi-line string is not closed"),
        ("x = \"a\\qb\"\n", 1, 7, #"\q is not an escape TOML knows"#),
        ("x = \"a\\e\"\n", 1, 7, #"\e is not an escape TOML knows"#),
        ("x = \"\\u12\"\n", 1, 6, #"\u needs 4 hexadecimal digits"#),
        ("x = \"\\uD800\"\n", 1, 6, #"\uD800 is not a Unicode character"#),
        ("x = \"\\U00110000\"\n", 1, 6, #"\U00110000 is not a Unicode character"#),
        ("x = \"a\\u0000\"\n", 1, 7, "an escaped NUL (\\u0000) cannot stand in a string or key"),
        ("x = \"é\\\"\n", 1, 9, "a string must close on the line it opens"),
        // Characters TOML forbids anywhere
        ("x = 1\u{0}\n", 1, 6, "a NUL byte (\\0) is a control character"),
        ("x = 1\r", 1, 6, "a carriage return is not followed by a line feed"),
    ])
    func refusal(text: String, line: Int, column: Int, reason: String) {
        let error = #expect(throws: TOMLSyntaxError.self) { try read(text) }
        #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test("a key or table is defined once", arguments: [
        ("a = 1\na = 2\n", 2, 5, "error while parsing key-value pair: cannot redefine existing integer 'a'"),
        ("[t]\nx = 'a'\n[t]\n", 3, 1, "error while parsing table header: cannot redefine existing table 't'"),
        ("[t]\nx = 1\nx = 2\n", 3, 5, "cannot redefine existing integer 't.x'"),
        ("a.b = 1\n[a]\n", 2, 1, "cannot redefine existing table 'a'"),
        ("a = 1\n[a]\n", 2, 1, "cannot redefine existing integer 'a'"),
        ("a = 1\na.b = 2\n", 2, 1, "cannot redefine existing integer 'a'"),
        ("a = {}\n[a.b]\n", 2, 1, "cannot redefine existing table 'a'"),
        ("a = { b = 1 }\na.c = 2\n", 2, 1, "cannot redefine existing table 'a'"),
        ("[a.b]\n[a]\nb.c = 1\n", 3, 1, "cannot redefine existing table 'a.b'"),
        ("x = { a = 1, a = 2 }\n", 1, 18, "cannot redefine existing integer 'x.a'"),
        ("\"a b\" = 1\n'a b' = 2\n", 2, 9, #"cannot redefine existing integer '"a b"'"#),
        ("[\"cöin\"]\n[ \"cöin\" ]\n", 2, 1, #"cannot redefine existing table '"cöin"'"#),
    ])
    func duplicate(text: String, line: Int, column: Int, reason: String) {
        let error = #expect(throws: TOMLSyntaxError.self) { try read(text) }
        #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.hint == "each section and key may appear only once")
    }

    @Test("nesting up to the bound is read; one level more is refused where it starts, with the caller's hint")
    func nesting() throws {
        let deep = Self.nesting
        let arrays = "x = " + String(repeating: "[", count: deep) + String(repeating: "]", count: deep) + "\n"
        #expect(try read(arrays).value(at: ["x"])?.array != nil)
        let tooDeep = "x = " + String(repeating: "[", count: deep + 1) + String(repeating: "]", count: deep + 1) + "\n"
        let error = #expect(throws: TOMLSyntaxError.self) { try read(tooDeep) }
        #expect(error == TOMLSyntaxError(line: 1, column: 5 + deep, reason: "nested more than 8 levels deep", hint: "hint"))

        let inline = "x = " + String(repeating: "{ a = ", count: deep + 1) + "1" + String(repeating: " }", count: deep + 1) + "\n"
        #expect(throws: TOMLSyntaxError.self) { try read(inline) }

        let key = (1...deep).map { "k\($0)" }.joined(separator: ".")
        #expect(try read("\(key) = 1\n").value(at: (1...deep).map { "k\($0)" }) == .integer(1))
        // The header's 8 tables under the root, then 7 more for the dotted key inside the last.
        #expect(try read("[\(key)]\n\(key) = 1\n").tables.count == 2 * deep)
        let longKey = key + ".k9"
        let keyError = #expect(throws: TOMLSyntaxError.self) { try read("\(longKey) = 1\n") }
        #expect(keyError?.column == key.utf8.count + 2 && keyError?.reason == "nested more than 8 levels deep")
        #expect(throws: TOMLSyntaxError.self) { try read("[\(longKey)]\n") }
        // Far past the bound: refused at once, not read deeper.
        #expect(throws: TOMLSyntaxError.self) { try read("x = " + String(repeating: "[", count: 100_000)) }
    }

    @Test("the 64-bit limits are read exactly")
    func integerLimits() throws {
        #expect(try value("x = 9223372036854775807\n", "x") == .integer(.max))
        #expect(try value("x = -9223372036854775808\n", "x") == .integer(.min))
        #expect(try value("x = 0x7FFFFFFFFFFFFFFF\n", "x") == .integer(.max))
        #expect(throws: TOMLSyntaxError.self) { try read("x = 0x8000000000000000\n") }
    }

    /// Bytes TOML's grammar is made of, so that random text reaches deep into the reader.
    static let alphabet: [String] = ["[", "]", "{", "}", "=", ",", ".", "\"", "'", "\\", "#", " ", "\n", "\r\n", "a", "b", "1", "0",
                                     "x", "_", "-", "+", "e", "u", "é", "\"\"\"", "'''", "true", "inf", ":"]

    @Test("any bytes are read or refused with a place, never a crash")
    func randomBytes() async {
        await propertyCheck(count: PropertyCases.count(1000), input: Gen.int(in: 0...255).array(of: 0...200)) { numbers in
            let text = String(decoding: numbers.map { UInt8($0) }, as: UTF8.self)
            checkReadOrPlaced(text)
        }
    }

    @Test("any text of TOML's own characters is read or refused with a place, never a crash")
    func randomGrammar() async {
        await propertyCheck(count: PropertyCases.count(2000), input: Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...80)) { picks in
            checkReadOrPlaced(picks.map { Self.alphabet[$0] }.joined())
        }
    }

    private func checkReadOrPlaced(_ text: String) {
        do throws(TOMLSyntaxError) {
            _ = try read(text)
        } catch {
            let lines = text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1
            #expect(error.line >= 1 && error.line <= lines && error.column >= 1, "\(error) for \(text.debugDescription)")
            #expect(!error.reason.isEmpty)
        }
    }
}
