import ControllerHost
import ControllerSCXML

#if canImport(Glibc)
import Glibc
#endif

/// `scxml-run FILE...`: runs each SCXML document (or W3C test, `.txml`) in virtual time and
/// prints one line per file: `FILE: pass`, `FILE: fail (ended in S)` or `FILE: error: REASON`.
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
    usage: scxml-run FILE...
    Runs each SCXML document (.scxml) or W3C conformance test (.txml) in virtual time until a
    top-level final state or until nothing more can happen, and prints one line per file:
    FILE: pass, FILE: fail (ended in S) or FILE: error: REASON.
    Exit status: 0 every file passed; 1 one did not; 2 usage; 5 libxml2 is not installed.
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

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
    printUsage(printLine)
    exit(ExitStatus.allPassed)
}
if arguments.isEmpty {
    printUsage(printError)
    exit(ExitStatus.usage)
}
if let option = arguments.first(where: { $0.hasPrefix("-") }) {
    printError("scxml-run: unknown option \(option.shown)")
    printUsage(printError)
    exit(ExitStatus.usage)
}
do {
    try LibXML2Reader.load()
} catch {
    printError("scxml-run: \(error)")
    exit(ExitStatus.libraryMissing)
}
var allPassed = true
for file in arguments {
    let report = SCXMLRunner.run(file: file)
    if report.outcome != .pass { allPassed = false }
    printLine("\(file): \(report.outcome)")
}
exit(allPassed ? ExitStatus.allPassed : ExitStatus.notAllPassed)
