import ControllerFSM
@testable import ControllerSCXML
import Testing

/// Every size of a document that costs the loader time or memory has a bound in
/// `SCXMLLimits`: for each, the largest document the bound allows loads, and one a size up is
/// refused by file, line and element, naming the bound and its value. (A benchmark, not a
/// timed test: docs/reference/scxml.md gives the time the largest take on an optimised build.)
@Suite("The loader's bounds")
struct LoaderBoundsTests {
    /// A document of size `n` for one bound: `n` at the bound loads, `n + 1` is refused at
    /// `line` and `element`.
    struct Bound: Sendable, CustomTestStringConvertible {
        var limit: String
        var value: Int
        var document: @Sendable (Int) -> (text: String, line: Int, element: String?)
        var testDescription: String { limit }
    }

    static let bounds: [Bound] = [
        // A comment pads the document to `n` bytes; the bound falls on the line of its byte.
        Bound(limit: "maximumDocumentBytes", value: SCXMLLimits.maximumDocumentBytes) { n in
            let head = Array((Self.open + "<state id=\"a\"/>\n<!--").utf8)
            let tail = Array("-->\n</scxml>".utf8)
            let room = n - head.count - tail.count
            let padding = (0..<room).map { $0 % 80 == 79 ? UInt8(ascii: "\n") : UInt8(ascii: "x") }
            let bytes = head + padding + tail
            let line = 1 + bytes.prefix(SCXMLLimits.maximumDocumentBytes).filter { $0 == UInt8(ascii: "\n") }.count
            return (String(decoding: bytes, as: UTF8.self), line, nil)
        },
        // <scxml>, <state>, <onentry> and n - 3 <log/>s, one a line from line 4.
        Bound(limit: "maximumElements", value: SCXMLLimits.maximumElements) { n in
            let logs = String(repeating: "<log/>\n", count: n - 3)
            return (Self.open + "<state id=\"a\"><onentry>\n" + logs + "</onentry></state></scxml>", n - 1, "log")
        },
        // id=, a namespace declaration and n - 2 attributes of another tool's namespace.
        Bound(limit: "maximumAttributesPerElement", value: SCXMLLimits.maximumAttributesPerElement) { n in
            let others = (0..<(n - 2)).map { " x:a\($0)=\"\"" }.joined()
            return (Self.open + "<state id=\"a\" xmlns:x=\"urn:x\"\(others)/></scxml>", 2, "state")
        },
        // n elements deep: <scxml>, states inside states, one a line. The runtime refuses states
        // nested so deep (MachineLimits.maximumDepth); only the bound's own refusal matters here.
        Bound(limit: "maximumElementDepth", value: SCXMLLimits.maximumElementDepth) { n in
            let opens = (1..<n).map { "<state id=\"s\($0)\">\n" }.joined()
            return (Self.open + opens + String(repeating: "</state>", count: n - 1) + "</scxml>", n, "state")
        },
        // n states, one a line from line 2, each moving to the next on "go".
        Bound(limit: "maximumStates", value: SCXMLLimits.maximumStates) { n in
            let states = (0..<(n - 1)).map { "<state id=\"s\($0)\"><transition event=\"go\" target=\"s\($0 + 1)\"/></state>\n" }.joined()
            return (Self.open + "<state id=\"init\"><onentry><raise event=\"go\"/></onentry><transition event=\"go\" target=\"s0\"/></state>\n"
                + states.replacing("target=\"s\(n - 1)\"", with: "target=\"init\"") + "</scxml>", 1 + n, "state")
        },
        // n - 1 raised names, one a line from line 3, and error.execution.
        Bound(limit: "maximumEvents", value: SCXMLLimits.maximumEvents) { n in
            let raises = (0..<(n - 1)).map { "<raise event=\"e\($0)\"/>\n" }.joined()
            return (Self.open + "<state id=\"a\"><onentry>\n" + raises + "</onentry></state></scxml>", 2 + (n - 1), "raise")
        },
        // A transition into n of the 32 regions of a parallel state.
        Bound(limit: "maximumTargets", value: SCXMLLimits.maximumTargets) { n in
            let regions = (0..<(2 * SCXMLLimits.maximumTargets)).map { "<state id=\"r\($0)\"><state id=\"in\($0)\"/></state>" }.joined()
            let targets = (0..<n).map { "in\($0)" }.joined(separator: " ")
            return (Self.open + "<state id=\"a\"><transition event=\"go\" target=\"\(targets)\"/></state>\n<parallel id=\"p\">" + regions
                + "</parallel></scxml>", 2, "transition")
        },
        // 99 raised names and error.execution: each "*" transition is 100 rows; the last
        // transition, a line of its own, names as many events as the rows left.
        Bound(limit: "maximumRows", value: SCXMLLimits.maximumRows) { n in
            let events = (0..<99).map { "e\($0)" } + ["error.execution"]
            let raises = events.dropLast().map { "<raise event=\"\($0)\"/>" }.joined()
            let stars = String(repeating: "<transition event=\"*\" cond=\"true\"/>", count: (n - 1) / events.count)
            let named = events.prefix((n - 1) % events.count + 1).joined(separator: " ")
            return (Self.open + "<state id=\"a\"><onentry>" + raises + "</onentry>" + stars + "\n<transition event=\"\(named)\"/></state></scxml>",
                    3, "transition")
        },
        // 998 raised names and error.execution, 1,000 columns; two states and n / 1,000 - 2
        // rows for e0, one a line from line 3: (events + 1) × (states + rows) = n. The final
        // state comes first: the bound is passed at the last row.
        Bound(limit: "maximumTableCells", value: SCXMLLimits.maximumTableCells) { n in
            let columns = 1_000
            let raises = (0..<(columns - 2)).map { "<raise event=\"e\($0)\"/>" }.joined()
            let rows = (n + columns - 1) / columns - 2
            let transitions = String(repeating: "<transition event=\"e0\" cond=\"true\" target=\"pass\"/>\n", count: rows)
            return (Self.open + "<final id=\"pass\"/><state id=\"a\"><onentry>" + raises + "</onentry>\n" + transitions + "</state></scxml>",
                    2 + rows, "transition")
        },
    ]

    static let open = "<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\">\n"

    /// What loading `text` (reading it, and making its machine) refuses, nil when it loads.
    static func loading(_ text: String, file: String = "big.scxml") -> SCXMLError? {
        do {
            _ = try MachineBuilder<IntegerDatamodel>.build(SCXMLRunner.document(text: text, file: file))
            return nil
        } catch {
            return error
        }
    }

    @Test("the largest document a bound allows loads; one a size up is refused, naming the bound", arguments: bounds)
    func bound(_ bound: Bound) {
        let largest = bound.document(bound.value)
        let refusal = Self.loading(largest.text)
        if bound.limit == "maximumElementDepth" {
            // Past what the runtime nests, but not past the loader's bound.
            if case .overLimit? = refusal { Issue.record("\(refusal!)") }
        } else {
            #expect(refusal == nil, "\(refusal!)")
        }
        let over = bound.document(bound.value + 1)
        guard case .overLimit(let file, let line, let element, let limit, let reason)? = Self.loading(over.text) else {
            Issue.record("\(bound.limit): \(String(describing: Self.loading(over.text)))")
            return
        }
        #expect(file == "big.scxml" && line == over.line && element == over.element && limit == bound.limit,
                "\(file):\(line): \(element ?? "-") \(limit)")
        #expect(reason.contains("(more than \(bound.value), SCXMLLimits.\(bound.limit)); "), "\(reason)")
    }

    @Test("the deepest document the runtime runs is well inside the element depth bound")
    func deepestRunnable() {
        // Nine states deep (MachineLimits.maximumDepth 8 below the top), an <onentry>, 16
        // <if>s (SCXMLLimits.maximumIfDepth) and a <log/>: 28 elements with <scxml>.
        let states = MachineLimits.maximumDepth + 1
        let opens = (0..<states).map { "<state id=\"s\($0)\">" }.joined() + "<onentry>"
            + String(repeating: "<if cond=\"true\">", count: SCXMLLimits.maximumIfDepth) + "<log expr=\"1\"/>"
        let closes = String(repeating: "</if>", count: SCXMLLimits.maximumIfDepth) + "</onentry>" + String(repeating: "</state>", count: states)
        #expect(Self.loading(Self.open + opens + closes + "</scxml>") == nil)
        #expect(1 + states + 1 + SCXMLLimits.maximumIfDepth + 1 < SCXMLLimits.maximumElementDepth)
    }

    @Test("a file larger than the bound is refused without being read whole")
    func largeFile() throws {
        // /dev/zero never ends; the loader stops one byte past the bound.
        let report = SCXMLRunner.run(file: "/dev/zero")
        guard case .error(let reason) = report.outcome else {
            Issue.record("\(report.outcome)")
            return
        }
        #expect(reason.hasPrefix("/dev/zero:1: the document is longer than the loader reads (more than \(SCXMLLimits.maximumDocumentBytes)"), "\(reason)")
    }

    @Test("a UTF-16 document (NUL bytes) is refused, naming the encoding")
    func utf16() {
        let text = String(decoding: Array("<scxml/>".utf8).flatMap { [$0, 0] }, as: UTF8.self)
        guard case .malformed("u.scxml", 1, nil, let reason)? = Self.loading(text, file: "u.scxml") else {
            Issue.record("\(String(describing: Self.loading(text, file: "u.scxml")))")
            return
        }
        #expect(reason.contains("UTF-16"))
    }

    @Test("the event index finds what each descriptor matches, as EventDescriptor.matches says")
    func eventIndex() {
        let events = ["a", "a.b", "a.b.c", "ab", "ab.c", "b", "b.a", "done.state.x", "done.state.x.y", "done.state.xy", "error.execution", "a..b", "é.x", "e\u{301}.y"]
        var index = EventIndex(events: events)
        let descriptors = ["a", "a.b", "a.*", "a.", "ab", "b", "done", "done.state.x", "error", "*", "a..b", "é", "x", "a.b.c.d"]
        for token in descriptors {
            let descriptor = EventDescriptor(token)
            let expected = events.indices.filter { descriptor.matches(events[$0]) }
            #expect(index.events(matching: [descriptor]) == expected, "\(token)")
        }
        // Several descriptors: each event once, in order.
        let several = EventDescriptor.list("a.b ab a")
        #expect(index.events(matching: several) == events.indices.filter { event in several.contains { $0.matches(events[event]) } })
    }
}
