import ControllerHost
import ControllerSCXML

/// Why a chart controller could not be loaded: each names the file (the binding file's key path,
/// or the chart's line and element) and what to do.
public enum ChartLoadError: Error, Sendable, CustomStringConvertible {
    /// The binding file: unreadable, not TOML, or a key the chart does not answer.
    case binding(BoardFileError)
    /// The chart: unreadable, not SCXML, or using what a chart controller does not run.
    case chart(SCXMLError)
    /// A second chart loaded into a space that holds one.
    case spaceTaken(space: String)

    public var description: String {
        switch self {
        case .binding(let error): error.description
        case .chart(let error): error.description
        case .spaceTaken(let space):
            "a chart is already loaded into \(space); a space holds one chart for the life of the process (give each chart a space of its own)"
        }
    }
}
