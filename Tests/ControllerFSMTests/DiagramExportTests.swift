import ControllerFSM
import Testing

@Suite("Diagrams")
struct DiagramExportTests {
    enum S: Int, MachineSymbol { case locked, unlocked }
    enum E: Int, MachineSymbol { case coin, push }

    func table() throws -> TransitionTable<S, E, Int> {
        var definition = MachineDefinition<S, E, Int>(initial: .locked)
        definition.state(.locked) { s in
            s.on(.coin, to: .unlocked) { credit, _ in credit = 1 }
            s.on(.push)
        }
        definition.state(.unlocked) { s in
            s.on(.coin) { credit, _ in credit += 1 }
            s.on(.push, when: Guard("credit > 1") { $0 > 1 }) { credit, _ in credit -= 1 }
            s.on(.push, to: .locked)
        }
        return try definition.compile()
    }

    @Test("Mermaid stateDiagram-v2 with the initial state, guards and internal transitions labelled")
    func mermaid() throws {
        #expect(try table().mermaid() == """
            stateDiagram-v2
                [*] --> locked
                locked --> unlocked : coin
                locked --> locked : push (internal)
                unlocked --> unlocked : coin (internal)
                unlocked --> unlocked : push [credit > 1] (internal)
                unlocked --> locked : push

            """)
    }

    @Test("Graphviz DOT with internal transitions dashed")
    func dot() throws {
        #expect(try table().dot(name: "gate") == """
            digraph "gate" {
                rankdir=LR;
                node [shape=box, style=rounded];
                __initial [shape=point, label=""];
                __initial -> "locked";
                "locked";
                "unlocked";
                "locked" -> "unlocked" [label="coin"];
                "locked" -> "locked" [label="push", style=dashed];
                "unlocked" -> "unlocked" [label="coin", style=dashed];
                "unlocked" -> "unlocked" [label="push [credit > 1]", style=dashed];
                "unlocked" -> "locked" [label="push"];
            }

            """)
    }

    @Test("a nested machine: DOT clusters with initial points, history nodes, edges clipped at the cluster")
    func nestedDot() throws {
        let dot = try officeDefinition().compile().dot(name: "office")
        for line in [
            "    compound=true;",
            "    subgraph \"cluster_working\" {",
            "        subgraph \"cluster_busy\" {",
            "            \"__initial_busy\" -> \"slow\";",
            "        \"resume\" [shape=circle, label=\"H\"];",
            "        \"deepResume\" [shape=circle, label=\"H*\"];",
            "        \"__initial_working\" -> \"__initial_busy\" [label=\"[start busy]\"] [lhead=\"cluster_busy\"];",
            "    \"__initial_working\" -> \"alarmed\" [label=\"alarm\", ltail=\"cluster_working\"];",
            "    \"idle\" -> \"__initial_busy\" [label=\"start\", lhead=\"cluster_busy\"];",
            "    \"alarmed\" -> \"resume\" [label=\"clear\"];",
        ] {
            #expect(dot.split(separator: "\n").contains(Substring(line)), "missing: \(line)\n\(dot)")
        }
        #expect(dot.filter { $0 == "{" }.count == dot.filter { $0 == "}" }.count)
    }

    @Test("a nested machine: Mermaid composite states, each row inside the innermost superstate holding both ends")
    func nestedMermaid() throws {
        let mermaid = try officeDefinition().compile().mermaid()
        #expect(mermaid.contains("""
                state working {
                    [*] --> busy : [start busy]
                    [*] --> idle
                    state busy {
                        [*] --> slow
                        slow --> fast : speed
                        fast --> slow : speed
                    }
                    state "H" as resume
                    resume --> idle : default
            """), "\(mermaid)")
        #expect(mermaid.contains("\n    working --> alarmed : alarm\n"))
        #expect(mermaid.contains("\n        idle --> busy : start\n"))
    }
}
