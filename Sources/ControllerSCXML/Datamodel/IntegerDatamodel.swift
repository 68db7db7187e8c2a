import ControllerHost

/// The small datamodel: integer `<data>`, and expressions of literals, data, `+`, `-`,
/// comparisons, `&&`, `||`, `!`, `true`, `false` and `In('id')` (see `IntegerExpressionParser`).
/// A datum declared without a value is unbound; reading it, or a sum that overflows, is an
/// execution error (`error.execution`).
public struct IntegerDatamodel: SCXMLDatamodel {
    public typealias Condition = IntegerExpression
    public typealias ValueExpression = IntegerExpression
    /// A datum's slot.
    public typealias Location = Int
    public typealias Value = Int

    /// "integer" (what a `.txml` expands `conf:datamodel` to); "null" too, which has no data and
    /// only `In()`, a subset.
    public static let names = ["integer", "null"]

    public private(set) var values: [Int?] = []
    private var slots: [String: Int] = [:]
    private let scope: SCXMLScope

    public init(scope: SCXMLScope) { self.scope = scope }

    public mutating func declare(_ id: String) throws(DatamodelRefusal) -> Int {
        guard Self.isName(id) else { throw DatamodelRefusal("\"\(id.shown)\" is not a name the integer datamodel can read (letters, digits, _)") }
        if let slot = slots[id] { return slot }
        slots[id] = values.count
        values.append(nil)
        return values.count - 1
    }

    public func condition(_ text: String) throws(DatamodelRefusal) -> IntegerExpression {
        let expression = try IntegerExpressionParser.parse(text, variables: slots, scope: scope)
        guard expression.isBoolean else { throw DatamodelRefusal("\"\(text.shown)\" is a number, not a condition; compare it (== 1)") }
        return expression
    }

    public func value(_ text: String) throws(DatamodelRefusal) -> IntegerExpression {
        let expression = try IntegerExpressionParser.parse(text, variables: slots, scope: scope)
        guard !expression.isBoolean else { throw DatamodelRefusal("\"\(text.shown)\" is a condition; the integer datamodel's values are integers") }
        return expression
    }

    public func location(_ text: String) throws(DatamodelRefusal) -> Int {
        let name = String(text.trimmingWhitespace)
        guard let slot = slots[name] else { throw DatamodelRefusal("\"\(name.shown)\" is not declared by a <data>") }
        return slot
    }

    public func evaluateCondition(_ condition: IntegerExpression, in configuration: SCXMLConfiguration) throws(DatamodelExecutionError) -> Bool {
        try truth(condition, configuration)
    }

    public func evaluateValue(_ value: IntegerExpression, in configuration: SCXMLConfiguration) throws(DatamodelExecutionError) -> Int {
        try number(value, configuration)
    }

    public mutating func assign(_ value: Int, to location: Int) throws(DatamodelExecutionError) {
        values[location] = value
    }

    public mutating func setEvent(name: String) {}

    public func describe(_ value: Int) -> String { "\(value)" }

    /// The value of the datum `id`, nil when unbound or undeclared (for tests and traces).
    public func value(of id: String) -> Int? { slots[id].flatMap { values[$0] } }

    private func number(_ expression: IntegerExpression, _ configuration: SCXMLConfiguration) throws(DatamodelExecutionError) -> Int {
        switch expression {
        case .literal(let value):
            return value
        case .variable(let slot):
            guard let value = values[slot] else {
                throw DatamodelExecutionError("\(slots.first { $0.value == slot }?.key ?? "a datum") is read before it has a value")
            }
            return value
        case .arithmetic(let op, let left, let right):
            let (a, b) = (try number(left, configuration), try number(right, configuration))
            let (result, overflow) = op == .plus ? a.addingReportingOverflow(b) : a.subtractingReportingOverflow(b)
            if overflow { throw DatamodelExecutionError("\(a) \(op.rawValue) \(b) overflows") }
            return result
        case .boolean, .inState, .comparison, .logical, .not:
            throw DatamodelExecutionError("a condition where a number was expected")
        }
    }

    private func truth(_ expression: IntegerExpression, _ configuration: SCXMLConfiguration) throws(DatamodelExecutionError) -> Bool {
        switch expression {
        case .boolean(let value):
            return value
        case .inState(let state):
            return configuration.isActive(state)
        case .not(let inner):
            return !(try truth(inner, configuration))
        case .logical(let op, let left, let right):
            // Short-circuit, as ECMAScript: the right side is not evaluated when the left decides.
            let first = try truth(left, configuration)
            if op == .and ? !first : first { return first }
            return try truth(right, configuration)
        case .comparison(let op, let left, let right):
            let (a, b) = (try number(left, configuration), try number(right, configuration))
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            }
        case .literal, .variable, .arithmetic:
            throw DatamodelExecutionError("a number where a condition was expected")
        }
    }

    private static func isName(_ id: String) -> Bool {
        guard let first = id.first, first.isLetter || first == "_" else { return false }
        return id.allSatisfy { $0.isLetter || $0.isASCIIDigit || $0 == "_" }
    }
}
