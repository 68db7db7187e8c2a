import ControllerFSM
import ControllerSCXML
import Testing

/// A loaded machine carries its own states' and events' names and binds them itself: built,
/// run, named and drawn with no `DocumentSymbols.$table.withValue` of the caller's, from any
/// task, two documents at once.
@Suite("An SCXML machine outside any scope")
struct MachineScopeTests {
    static func document(_ prefix: String) -> String {
        scxml("""
            <state id="\(prefix)0"><onentry><raise event="go"/></onentry><transition event="go" target="\(prefix)1"/></state>
            <parallel id="\(prefix)p">
              <state id="\(prefix)1"><transition event="done.state.\(prefix)p" target="pass"/></state>
            </parallel>
            <final id="pass"/>
            """)
    }

    static func machine(_ prefix: String) throws -> SCXMLMachine<IntegerDatamodel> {
        try MachineBuilder<IntegerDatamodel>.build(SCXMLRunner.document(text: document(prefix), file: "\(prefix).scxml"))
    }

    @Test("built, run, named and described with no scope of the caller's")
    func noScope() throws {
        #expect(DocumentSymbols.table.states.isEmpty, "no ambient table here")
        let machine = try Self.machine("s")
        #expect(machine.stateNames == ["s0", "sp", "s1", "pass"])
        #expect(machine.eventNames == ["go", "error.execution"])
        #expect(machine.finals.map(machine.name(of:)) == ["pass"])
        #expect(machine.table.rowInfo.map { machine.name(of: $0.from) } == ["s0"])
        #expect(machine.description == "s.scxml: 4 states, 2 events, 1 rows")
        #expect(machine.scxml().contains("<parallel id=\"sp\">\n        <state id=\"s1\"/>"), "\(machine.scxml())")
        #expect(machine.mermaid().contains("s0 --> s1 : go"), "\(machine.mermaid())")
        #expect(machine.dot().contains("\"s0\" -> \"s1\""), "\(machine.dot())")
        // Twice: a run starts from the machine as loaded; and through the driver itself, which
        // binds the names as the machine does.
        for _ in 0..<2 {
            let report = machine.run()
            #expect(report.outcome == .fail(endedIn: ["s1"]), "\(report.outcome)")
        }
        #expect(SCXMLDriver<IntegerDatamodel>.run(machine).outcome == .fail(endedIn: ["s1"]))
        // The runtime's own calls, in the machine's scope.
        #expect(machine.withSymbols { DocumentState.allCases.map(\.name) } == machine.stateNames)
        #expect(DocumentState.allCases.isEmpty, "and none left behind")
    }

    @Test("two documents run at once, each with its own names")
    func concurrently() async throws {
        let machines = try ["a", "b", "c", "d"].map(Self.machine)
        let ended = await withTaskGroup(of: [String].self) { group in
            for machine in machines {
                group.addTask {
                    (0..<50).map { _ in
                        guard case .fail(let states) = machine.run().outcome else { return "?" }
                        return states.joined()
                    }
                }
            }
            var all: [[String]] = []
            for await states in group { all.append(states) }
            return all
        }
        #expect(Set(ended.map { Set($0) }) == [["a1"], ["b1"], ["c1"], ["d1"]])
    }
}
