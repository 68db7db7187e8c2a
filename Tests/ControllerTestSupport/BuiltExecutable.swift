import Foundation

/// A product of the package built beside the test runner, or why it was not found: `swift test`
/// (with or without `--scratch-path`, debug or release) builds every product into the same
/// directory as the test bundle, e.g. `.build/debug/turnstiled` next to
/// `.build/debug/ControllerFSMPackageTests.xctest`.
package func builtExecutable(named name: String) -> Result<URL, NotBuilt> {
    var runners: [URL] = []
    #if os(Linux)
    runners.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath())
    #endif
    runners.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath())
    runners.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
    var looked: [String] = []
    for runner in runners {
        // Up to the products directory: the runner itself on Linux, or inside a bundle
        // (`X.xctest/Contents/MacOS/X`) on Darwin.
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            looked.append(candidate.path)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return .success(candidate) }
            directory.deleteLastPathComponent()
        }
    }
    return .failure(NotBuilt(name: name, looked: looked))
}

/// A product not found beside the test runner: where it was looked for.
package struct NotBuilt: Error, CustomStringConvertible {
    package var name: String
    package var looked: [String]
    package var description: String { "\(name) is not built beside the test runner; looked at \(looked)" }
}
