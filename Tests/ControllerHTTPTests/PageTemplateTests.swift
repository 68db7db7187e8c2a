import Testing
@testable import ControllerHTTP

/// How a page fills its file's holes (Pages/; PageTemplate): the served bytes are the file's,
/// markers and samples replaced, nothing else touched.
@Suite struct PageTemplateTests {
    @Test("a hole keeps its sample, drops it or takes the page's text; the rest is the file's bytes")
    func fills() {
        let file = #"a/*{kept*/ b/*}*/ c/*{dropped*/ d/*}*/ "/*{text*/e/*}*/" f"#
        #expect(PageTemplate.fill(file, ["kept": .sample, "dropped": .nothing, "text": .text("E\n")], file: "test") == "a b c \"E\n\" f")
        #expect(PageTemplate.fill("no holes", [:], file: "test") == "no holes")
    }

    @Test("a file's text is its bytes less the newline that ends it, and only that one")
    func text() {
        #expect(PageTemplate.text(Array("x\n\n".utf8)) == "x\n")
        #expect(PageTemplate.text(Array("x".utf8)) == "x")
    }
}
