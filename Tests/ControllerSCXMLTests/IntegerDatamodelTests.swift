@testable import ControllerSCXML
import Testing

/// The integer datamodel: declared data, literals, `+`/`-`, comparisons, `&&`/`||`/`!`,
/// `true`/`false`, `In('id')`; what it cannot read is refused at load time, what fails while
/// running (an unbound datum, an overflow) is an execution error.
@Suite("The integer datamodel")
struct IntegerDatamodelTests {
    static let scope = SCXMLScope(stateIDs: ["s0", "s1"], name: nil, sessionID: "t#1")

    func model(_ values: [String: Int]) throws -> IntegerDatamodel {
        var model = IntegerDatamodel(scope: Self.scope)
        for (id, value) in values.sorted(by: { $0.key < $1.key }) {
            let slot = try model.declare(id)
            try model.assign(value, to: slot)
        }
        return model
    }

    @Test("conditions", arguments: [
        ("Var1 == 1", true), ("Var1 === 1", true), ("Var1 != 1", false), ("Var1 + Var2 == 3", true),
        ("Var2 - 1 == Var1", true), ("Var1 < Var2", true), ("Var2 <= 1", false), ("Var2 >= 2", true),
        ("Var1 > -1", true), ("true", true), ("false", false), ("!false", true),
        ("Var1 == 1 && Var2 == 2", true), ("Var1 == 2 || (Var2 == 2)", true), ("In('s1')", true), ("In('s0')", false),
    ])
    func conditions(_ text: String, _ expected: Bool) throws {
        let model = try model(["Var1": 1, "Var2": 2])
        var configuration = SCXMLConfiguration(stateCount: 2)
        configuration.set(1, active: true)
        let condition = try model.condition(text)
        #expect(try model.evaluateCondition(condition, in: configuration) == expected)
    }

    @Test("values and assignment")
    func values() throws {
        var model = try model(["Var1": 41])
        let location = try model.location("Var1")
        let value = try model.evaluateValue(try model.value("Var1 + 1"), in: SCXMLConfiguration(stateCount: 0))
        try model.assign(value, to: location)
        #expect(model.value(of: "Var1") == 42)
    }

    @Test("refused at load time, with a reason", arguments: [
        "Var9 == 1", "'a' == 'a'", "Var1 == 1.5", "f(1)", "Var1", "In('nowhere')", "Var1 ==", "_event.name == 'x'", "Var1 * 2",
    ])
    func refusals(_ text: String) throws {
        let model = try model(["Var1": 1])
        #expect(throws: DatamodelRefusal.self) { try model.condition(text) }
    }

    @Test("a condition is not a value, nor a value a condition")
    func types() throws {
        let model = try model(["Var1": 1])
        #expect(throws: DatamodelRefusal.self) { try model.value("Var1 == 1") }
        #expect(throws: DatamodelRefusal.self) { try model.condition("Var1 + 1") }
        #expect(throws: DatamodelRefusal.self) { try model.location("Var2") }
    }

    @Test("an unbound datum and an overflow are execution errors")
    func executionErrors() throws {
        var model = try model(["Big": Int.max])
        _ = try model.declare("Unbound")
        let empty = SCXMLConfiguration(stateCount: 0)
        #expect(throws: DatamodelExecutionError.self) { try model.evaluateValue(try model.value("Unbound + 1"), in: empty) }
        #expect(throws: DatamodelExecutionError.self) { try model.evaluateValue(try model.value("Big + 1"), in: empty) }
    }

    /// SCXML: an error in executable content stops the block and raises error.execution; the
    /// assignment after the failing one does not run.
    @Test("an execution error raises error.execution and stops the block")
    func errorExecution() {
        let report = run(scxml("""
            <datamodel><data id="big" expr="9223372036854775807"/><data id="after" expr="0"/></datamodel>
            <state id="s0">
              <onentry><assign location="big" expr="big + 1"/><assign location="after" expr="1"/></onentry>
              <transition event="error.execution" cond="after == 0" target="pass"/>
              <transition event="*" target="fail"/>
            </state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass)
    }
}
