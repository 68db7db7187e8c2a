import ControllerHost

/// An expression of the integer datamodel, read once at load time.
public indirect enum IntegerExpression: Sendable, Equatable {
    case literal(Int)
    case boolean(Bool)
    /// A `<data>` by slot.
    case variable(Int)
    /// `In('id')`, by state number.
    case inState(Int)
    case arithmetic(ArithmeticOperator, IntegerExpression, IntegerExpression)
    case comparison(ComparisonOperator, IntegerExpression, IntegerExpression)
    case logical(LogicalOperator, IntegerExpression, IntegerExpression)
    case not(IntegerExpression)

    public enum ArithmeticOperator: String, Sendable { case plus = "+", minus = "-" }
    public enum ComparisonOperator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }
    public enum LogicalOperator: String, Sendable { case and = "&&", or = "||" }

    /// Whether it is a condition (true/false) rather than a number.
    var isBoolean: Bool {
        switch self {
        case .boolean, .inState, .comparison, .logical, .not: true
        case .literal, .variable, .arithmetic: false
        }
    }
}

/// Reads the integer datamodel's expressions: integer literals, `<data>` names, `+` and `-`,
/// comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`; ECMAScript's `===` and `!==` mean the same on
/// integers), `&&`, `||`, `!`, parentheses, `true`, `false` and `In('id')`.
struct IntegerExpressionParser {
    private let tokens: [Token]
    private var position = 0
    private let variables: [String: Int]
    private let scope: SCXMLScope

    enum Token: Equatable {
        case number(Int)
        case name(String)
        case string(String)
        case symbol(String)
    }

    static func parse(_ text: String, variables: [String: Int], scope: SCXMLScope) throws(DatamodelRefusal) -> IntegerExpression {
        guard text.count <= SCXMLLimits.maximumExpressionLength else {
            throw DatamodelRefusal("the expression is longer than \(SCXMLLimits.maximumExpressionLength) characters")
        }
        var parser = IntegerExpressionParser(tokens: try tokenize(text), variables: variables, scope: scope)
        let expression = try parser.or()
        if parser.position < parser.tokens.count {
            throw DatamodelRefusal("\"\(text.shown)\" has more after a whole expression (\(parser.describe(parser.tokens[parser.position]).shown))")
        }
        return expression
    }

    private init(tokens: [Token], variables: [String: Int], scope: SCXMLScope) {
        self.tokens = tokens
        self.variables = variables
        self.scope = scope
    }

    private static let symbols = ["===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "!", "(", ")"]

    private static func tokenize(_ text: String) throws(DatamodelRefusal) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character.isASCIIDigit {
                var end = index
                while end < characters.count, characters[end].isASCIIDigit { end += 1 }
                if end < characters.count, characters[end] == "." || characters[end].isLetter {
                    throw DatamodelRefusal("\"\(text.shown)\": the integer datamodel has integers only")
                }
                guard let value = Int(String(characters[index..<end])) else {
                    throw DatamodelRefusal("\"\(String(characters[index..<end]).shown)\" is too large for an integer")
                }
                tokens.append(.number(value))
                index = end
            } else if character.isLetter || character == "_" || character == "$" {
                var end = index
                // A dotted name (`_event.name`) is read whole, so the refusal names all of it.
                while end < characters.count, characters[end].isLetter || characters[end].isASCIIDigit || "_$.".contains(characters[end]) {
                    end += 1
                }
                tokens.append(.name(String(characters[index..<end])))
                index = end
            } else if character == "'" || character == "\"" {
                guard let close = characters[(index + 1)...].firstIndex(of: character) else {
                    throw DatamodelRefusal("\"\(text.shown)\" has a string that does not end")
                }
                tokens.append(.string(String(characters[(index + 1)..<close])))
                index = close + 1
            } else if let symbol = symbols.first(where: { matches($0, characters, at: index) }) {
                tokens.append(.symbol(symbol == "===" ? "==" : symbol == "!==" ? "!=" : symbol))
                index += symbol.count
            } else {
                throw DatamodelRefusal("\"\(text.shown)\": the integer datamodel does not read \"\(String(character).shown)\"")
            }
        }
        return tokens
    }

    private static func matches(_ symbol: String, _ characters: [Character], at index: Int) -> Bool {
        let symbolCharacters = Array(symbol)
        guard index + symbolCharacters.count <= characters.count else { return false }
        return Array(characters[index..<(index + symbolCharacters.count)]) == symbolCharacters
    }

    // or := and ('||' and)* ; and := comparison ('&&' comparison)*
    private mutating func or() throws(DatamodelRefusal) -> IntegerExpression {
        var left = try and()
        while take("||") { left = .logical(.or, try boolean(left), try boolean(try and())) }
        return left
    }

    private mutating func and() throws(DatamodelRefusal) -> IntegerExpression {
        var left = try comparison()
        while take("&&") { left = .logical(.and, try boolean(left), try boolean(try comparison())) }
        return left
    }

    // comparison := sum (op sum)?
    private mutating func comparison() throws(DatamodelRefusal) -> IntegerExpression {
        let left = try sum()
        for op in [IntegerExpression.ComparisonOperator.equal, .notEqual, .lessOrEqual, .greaterOrEqual, .less, .greater] where take(op.rawValue) {
            return .comparison(op, try integer(left), try integer(try sum()))
        }
        return left
    }

    // sum := unary (('+' | '-') unary)*
    private mutating func sum() throws(DatamodelRefusal) -> IntegerExpression {
        var left = try unary()
        while true {
            if take("+") {
                left = .arithmetic(.plus, try integer(left), try integer(try unary()))
            } else if take("-") {
                left = .arithmetic(.minus, try integer(left), try integer(try unary()))
            } else {
                return left
            }
        }
    }

    // unary := '!' unary | '-' NUMBER | atom
    private mutating func unary() throws(DatamodelRefusal) -> IntegerExpression {
        if take("!") { return .not(try boolean(try unary())) }
        if take("-") {
            guard case .number(let value)? = next() else { throw DatamodelRefusal("a minus sign is followed by a number here") }
            return .literal(-value)
        }
        return try atom()
    }

    private mutating func atom() throws(DatamodelRefusal) -> IntegerExpression {
        guard let token = next() else { throw DatamodelRefusal("the expression ends too early") }
        switch token {
        case .number(let value):
            return .literal(value)
        case .name("true"):
            return .boolean(true)
        case .name("false"):
            return .boolean(false)
        case .name("In"):
            guard take("("), case .string(let id)? = next(), take(")") else {
                throw DatamodelRefusal("In takes one state id in quotes: In('s1')")
            }
            guard let state = scope.stateNumber(id: id) else { throw DatamodelRefusal("In('\(id.shown)'): no state has the id \"\(id.shown)\"") }
            return .inState(state)
        case .name(let name):
            if position < tokens.count, tokens[position] == .symbol("(") {
                throw DatamodelRefusal("\(name.shown)(…): the integer datamodel has no functions but In")
            }
            guard let slot = variables[name] else {
                throw DatamodelRefusal("\"\(name.shown)\" is not declared by a <data>" + (name.hasPrefix("_") ? " (the integer datamodel has no system variables)" : "")
                    + (name.contains(".") ? " (the integer datamodel has no fields)" : ""))
            }
            return .variable(slot)
        case .symbol("("):
            let inner = try or()
            guard take(")") else { throw DatamodelRefusal("a parenthesis is not closed") }
            return inner
        case .string:
            throw DatamodelRefusal("the integer datamodel has no strings")
        case .symbol(let symbol):
            throw DatamodelRefusal("\"\(symbol.shown)\" where a value was expected")
        }
    }

    private func integer(_ expression: IntegerExpression) throws(DatamodelRefusal) -> IntegerExpression {
        if expression.isBoolean { throw DatamodelRefusal("a condition is used where a number is expected") }
        return expression
    }

    private func boolean(_ expression: IntegerExpression) throws(DatamodelRefusal) -> IntegerExpression {
        if !expression.isBoolean { throw DatamodelRefusal("a number is used where a condition (a comparison, true, false, In) is expected") }
        return expression
    }

    private mutating func take(_ symbol: String) -> Bool {
        if position < tokens.count, tokens[position] == .symbol(symbol) {
            position += 1
            return true
        }
        return false
    }

    private mutating func next() -> Token? {
        guard position < tokens.count else { return nil }
        position += 1
        return tokens[position - 1]
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .number(let value): "\(value)"
        case .name(let name): name
        case .string(let text): "'\(text)'"
        case .symbol(let symbol): symbol
        }
    }
}
