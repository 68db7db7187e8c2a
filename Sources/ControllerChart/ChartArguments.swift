/// `chartd`'s own argument, taken before the runtime's command line reads the rest: which
/// binding file (and so which chart) the program runs.
public enum ChartArguments {
    /// The option naming the binding file.
    public static let option = "--chart"

    /// How `chartd` is called, for its messages.
    public static let usage = "chartd --chart BINDING.toml COMMAND [OPTIONS]   (COMMAND: simulate, run, check, graph, lines, soak, stats, ctl; --help after --chart lists them)"

    /// `arguments` without `--chart FILE` (or `--chart=FILE`), and the file; nil when none is
    /// given. Arguments after `--` are the command's and not looked at. A second `--chart`, or
    /// one without a file, is refused.
    public static func split(_ arguments: [String]) -> Result<(bindingFile: String?, rest: [String]), ChartArgumentError> {
        var rest: [String] = []
        var file: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            var given: String?
            if argument == option {
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else {
                    return .failure(.missingFile)
                }
                given = arguments[index + 1]
                index += 2
            } else if argument.hasPrefix(option + "=") {
                given = String(argument.dropFirst(option.count + 1))
                index += 1
                if given!.isEmpty { return .failure(.missingFile) }
            } else {
                rest.append(argument)
                index += 1
                continue
            }
            if file != nil { return .failure(.givenTwice) }
            file = given
        }
        return .success((file, rest))
    }
}

/// What is wrong with `chartd`'s own argument.
public enum ChartArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingFile
    case givenTwice

    public var description: String {
        switch self {
        case .missingFile: "\(ChartArguments.option) needs the binding file's path: \(ChartArguments.usage)"
        case .givenTwice: "\(ChartArguments.option) is given twice; chartd runs one chart: \(ChartArguments.usage)"
        }
    }
}
