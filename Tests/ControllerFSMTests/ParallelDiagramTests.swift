import ControllerFSM
import Testing

/// Parallel regions in the three exports: DOT draws a parallel state as a dashed cluster,
/// Mermaid puts `--` between its regions, SCXML writes `<parallel>`; a row to several states
/// draws (or names) every target.
@Suite("Parallel regions in diagrams and SCXML")
struct ParallelDiagramTests {
    static let table = try! ParallelRegionTests.interlock().compile()

    @Test("Mermaid: a composite state with -- between the regions, an arrow to each target")
    func mermaid() {
        let text = Self.table.mermaid()
        #expect(text.contains("    state doors {\n        state outer {\n"))
        #expect(text.contains("        }\n        --\n        state inner {\n"))
        #expect(text.contains("alarm --> outerOpen : both\n") && text.contains("alarm --> innerOpen : both\n"))
        #expect(text.contains("back --> outerClosed : default"))
    }

    @Test("DOT: the parallel state is a dashed cluster")
    func dot() {
        let text = Self.table.dot(name: "interlock")
        #expect(text.contains("subgraph \"cluster_doors\" {\n        label=\"doors\";\n        style=\"rounded,dashed\";"))
        #expect(text.contains("subgraph \"cluster_outer\" {\n            label=\"outer\";\n            style=rounded;"))
        #expect(text.contains("\"alarm\" -> \"outerOpen\" [label=\"both\"];") && text.contains("\"alarm\" -> \"innerOpen\" [label=\"both\"];"))
    }

    @Test("SCXML: states, regions, finals, history, rows with every target, done events as comments")
    func scxml() {
        let text = Self.table.scxml(name: "interlock")
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<scxml xmlns=\"http://www.w3.org/2005/07/scxml\" version=\"1.0\" name=\"interlock\" initial=\"doors\">\n"))
        #expect(text.contains("    <parallel id=\"doors\">\n        <!-- when done sends allDone -->\n        <transition event=\"fire\" target=\"alarm\"/>\n"))
        #expect(text.contains("        <state id=\"outer\" initial=\"outerClosed\">\n"))
        #expect(text.contains("            <final id=\"outerDone\"/>\n"))
        #expect(text.contains("    <history id=\"back\" type=\"deep\">\n        <transition target=\"outerClosed\"/>\n    </history>\n") == false)
        #expect(text.contains("<history id=\"back\" type=\"deep\">"))
        #expect(text.contains("<transition event=\"both\" target=\"outerOpen innerOpen\"/>"))
        #expect(text.hasSuffix("</scxml>\n"))
    }
}
