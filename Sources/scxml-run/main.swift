import ControllerSCXML

#if canImport(Glibc)
import Glibc
#endif

/// `scxml-run FILE...`: runs each SCXML document (or W3C test, `.txml`) in virtual time and
/// prints one line per file: `FILE: pass`, `FILE: fail (ended in S)` or `FILE: error: REASON`.
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

func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
    print(usage)
    exit(ExitStatus.allPassed)
}
if arguments.isEmpty {
    printError(usage)
    exit(ExitStatus.usage)
}
if let option = arguments.first(where: { $0.hasPrefix("-") }) {
    printError("scxml-run: unknown option \(option)\n\(usage)")
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
    print("\(file): \(report.outcome)")
}
exit(allPassed ? ExitStatus.allPassed : ExitStatus.notAllPassed)
