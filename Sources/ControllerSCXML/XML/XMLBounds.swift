import ControllerFSM

/// The bounds a document's bytes must keep before libxml2 parses them, checked in one pass
/// over them: its size, its elements, each element's attributes, how deeply elements nest,
/// no DOCTYPE and no NUL byte. Each is refused by file and line (and element) naming its bound.
///
/// Why before, and not on libxml2's tree: libxml2 2.9 (Debian 12's) compares each attribute of
/// an element with every earlier one, so one element of 100,000 attributes takes it a minute;
/// and a DOCTYPE's internal subset declares entities libxml2 would work on while parsing. A
/// scan that knows where markup starts and ends is enough for both: it finds start tags, end
/// tags, comments, CDATA sections, processing instructions and DOCTYPEs, and counts the `=` of
/// a start tag outside its quoted values (each attribute has exactly one). It checks nothing
/// else: whatever is not well-formed is left to libxml2 to refuse, which stops at the first
/// error. libxml2 reads the same bytes as UTF-8 whatever the document declares
/// (`CLIBXML2_PARSE_IGNORE_ENC`), so both see the same markup.
enum XMLBounds {
    static func check(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws(SCXMLError) {
        var scan = Scan(bytes: bytes, file: file)
        try scan.run()
    }

    private struct Scan {
        let bytes: UnsafeBufferPointer<UInt8>
        let file: String
        var position = 0
        var line = 1
        var elements = 0
        var depth = 0

        init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
            self.bytes = bytes
            self.file = file
        }

        mutating func run() throws(SCXMLError) {
            if bytes.count > SCXMLLimits.maximumDocumentBytes {
                // The line the bound falls on: where an editor finds what is too much.
                let line = 1 + bytes[..<SCXMLLimits.maximumDocumentBytes].lazy.filter { $0 == ASCII.newline }.count
                throw .overLimit(
                    file: file, line: line, element: nil, limit: "maximumDocumentBytes", bound: SCXMLLimits.maximumDocumentBytes,
                    what: "the document is longer than the loader reads", fix: "split it into smaller documents")
            }
            while position < bytes.count {
                let byte = bytes[position]
                guard byte == ASCII.lessThan else {
                    try step()
                    continue
                }
                if starts(with: "<!--") {
                    guard try skip(past: "-->") else { return }
                } else if starts(with: "<![CDATA[") {
                    guard try skip(past: "]]>") else { return }
                } else if starts(with: "<?") {
                    guard try skip(past: "?>") else { return }
                } else if starts(with: "<!DOCTYPE") {
                    throw SCXMLError.unsupported(file: file, line: line, element: "!DOCTYPE", reason: XMLNodeKind.doctypeRefusal)
                } else if starts(with: "<!") {
                    return  // Not XML: libxml2 says what is wrong, and where.
                } else if starts(with: "</") {
                    depth = max(0, depth - 1)
                    guard try skip(past: ">") else { return }
                } else {
                    guard try startTag() else { return }
                }
            }
        }

        /// One start tag, from its `<` to its `>`; false when the document ends inside it.
        private mutating func startTag() throws(SCXMLError) -> Bool {
            let startLine = line
            let nameStart = position + 1
            var nameEnd = nameStart
            while nameEnd < bytes.count, !ASCII.endsName(bytes[nameEnd]) { nameEnd += 1 }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            elements += 1
            if elements > SCXMLLimits.maximumElements {
                throw .overLimit(
                    file: file, line: startLine, element: name, limit: "maximumElements", bound: SCXMLLimits.maximumElements,
                    what: "the document has too many elements", fix: "split it into smaller documents")
            }
            position = nameEnd
            var quote: UInt8?
            var attributes = 0
            var previous: UInt8 = 0
            while position < bytes.count {
                let byte = bytes[position]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == ASCII.doubleQuote || byte == ASCII.singleQuote {
                    quote = byte
                } else if byte == ASCII.equals {
                    attributes += 1
                    if attributes > SCXMLLimits.maximumAttributesPerElement {
                        throw .overLimit(
                            file: file, line: startLine, element: name, limit: "maximumAttributesPerElement",
                            bound: SCXMLLimits.maximumAttributesPerElement, what: "the element has too many attributes",
                            fix: "SCXML's elements have at most seven")
                    }
                } else if byte == ASCII.greaterThan {
                    position += 1
                    if previous != ASCII.slash {
                        depth += 1
                        if depth > SCXMLLimits.maximumElementDepth {
                            throw .overLimit(
                                file: file, line: startLine, element: name, limit: "maximumElementDepth",
                                bound: SCXMLLimits.maximumElementDepth, what: "elements nest too deeply here",
                                fix: "states nest at most \(MachineLimits.maximumDepth) deep in the runtime; flatten the document")
                        }
                    }
                    return true
                }
                previous = byte
                try step()
            }
            return false
        }

        /// Moves past one byte, counting lines; a NUL is not in any UTF-8 XML.
        private mutating func step() throws(SCXMLError) {
            let byte = bytes[position]
            if byte == ASCII.newline {
                line += 1
            } else if byte == 0 {
                throw SCXMLError.malformed(
                    file: file, line: line, element: nil,
                    reason: "the document has a NUL byte: it is not UTF-8 text (a UTF-16 or UTF-32 document is not read; save it as UTF-8)")
            }
            position += 1
        }

        /// Moves past the next `terminator`; false when the document ends first.
        private mutating func skip(past terminator: StaticString) throws(SCXMLError) -> Bool {
            while position < bytes.count {
                if starts(with: terminator) {
                    position += terminator.utf8CodeUnitCount
                    return true
                }
                try step()
            }
            return false
        }

        private func starts(with text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            return text.withUTF8Buffer { expected in
                for offset in 0..<count where bytes[position + offset] != expected[offset] { return false }
                return true
            }
        }
    }

    private enum ASCII {
        static let newline = UInt8(ascii: "\n")
        static let lessThan = UInt8(ascii: "<")
        static let greaterThan = UInt8(ascii: ">")
        static let slash = UInt8(ascii: "/")
        static let equals = UInt8(ascii: "=")
        static let doubleQuote = UInt8(ascii: "\"")
        static let singleQuote = UInt8(ascii: "'")

        /// White space, `/` or `>`: where an element's name ends.
        static func endsName(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == newline || byte == UInt8(ascii: "\r")
                || byte == slash || byte == greaterThan
        }
    }
}
