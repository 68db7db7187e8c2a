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
}
