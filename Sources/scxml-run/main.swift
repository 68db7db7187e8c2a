import ControllerHost
import ControllerSCXML

#if canImport(Glibc)
import Glibc
#endif

/// `scxml-run [--events FILE] [--trace] [--json] FILE...`: runs each SCXML document (or W3C
/// test, `.txml`) in virtual time and prints one line per file: `FILE: pass`, `FILE: fail
/// (ended in S)` or `FILE: error: REASON`; `--events` sends the chart timed external events,
/// `--trace` prints every macrostep before the result, `--json` prints JSON records instead.
/// Every line it writes goes through `shownLine`: a document's text (a state's id, a `cond`
/// with a line break, libxml2's own message) is escaped and bounded, so no line for a failing
/// file can be two lines, one of them reading `OTHER: pass`.
/// Exit status: 0 when every file passed, 1 when one did not, 2 for a usage error, 5 when
/// libxml2 is not installed (the message names the package).
enum ExitStatus {
    static let allPassed: Int32 = 0
    static let notAllPassed: Int32 = 1
    static let usage: Int32 = 2
    static let libraryMissing: Int32 = 5
}

let usage = """
    usage: scxml-run [--events FILE] [--trace] [--json] CHART...
    Runs each SCXML document (.scxml) or W3C conformance test (.txml) in virtual time until a
    top-level final state or until nothing more can happen, and prints one line per file:
    FILE: pass, FILE: fail (ended in S) or FILE: error: REASON.
      --events FILE  send each chart the external events FILE lists, one a line at its time
                     in seconds from the start: "1.5 open" (or "1.5 event open"); # comments
      --trace        print each macrostep before the result: the event, the states left,
                     the transitions taken (by line), the states entered, <log> lines and the
                     configuration after
      --json         print JSON records instead of text, one a line (a step each, a result)
    Exit status: 0 every file passed; 1 one did not; 2 usage, or an events file that cannot
    be read; 5 libxml2 is not installed.
    """

/// One line of standard output.
func printLine(_ text: String) {
    print(text.shownLine)
}

/// One line of standard error.
func printError(_ text: String) {
    var line = text.shownLine + "\n"
    line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}

/// The usage, a line at a time (its line breaks are the program's own).
func printUsage(_ print: (String) -> Void) {
    for line in usage.split(separator: "\n", omittingEmptySubsequences: false) { print(String(line)) }
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
    printUsage(printLine)
    exit(ExitStatus.allPassed)
}
var eventsFile: String?
var trace = false
var json = false
var charts: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--events":
        guard eventsFile == nil else {
            printError("scxml-run: --events is given twice; give one events file")
            exit(ExitStatus.usage)
        }
        guard let file = arguments.first, !file.hasPrefix("-") else {
            printError("scxml-run: --events needs a file: --events FILE")
            exit(ExitStatus.usage)
        }
        eventsFile = arguments.removeFirst()
    case "--trace": trace = true
    case "--json": json = true
    case "--": charts += arguments; arguments.removeAll()
    default:
        if argument.hasPrefix("-") {
            printError("scxml-run: unknown option \(argument.shown)")
            printUsage(printError)
            exit(ExitStatus.usage)
        }
        charts.append(argument)
    }
}
if charts.isEmpty {
    printUsage(printError)
    exit(ExitStatus.usage)
}
do {
    try LibXML2Reader.load()
} catch {
    printError("scxml-run: \(error)")
    exit(ExitStatus.libraryMissing)
}
var options = SCXMLRunOptions(trace: trace)
if let eventsFile {
    do {
        options.events = try ExternalEventScript.read(file: eventsFile)
    } catch {
        printError("scxml-run: \(error)")
        exit(ExitStatus.usage)
    }
}
var allPassed = true
for file in charts {
    let report = SCXMLRunner.run(file: file, options: options)
    if report.outcome != .pass { allPassed = false }
    for note in report.notes { printError("scxml-run: note: \(note)") }
    for line in json ? SCXMLRunLines.json(file: file, report: report) : SCXMLRunLines.text(file: file, report: report) {
        printLine(line)
    }
}
exit(allPassed ? ExitStatus.allPassed : ExitStatus.notAllPassed)
