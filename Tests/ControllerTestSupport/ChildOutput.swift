import Foundation

extension Process {
    /// Runs `executable` with `arguments` to its end: its status and all it wrote on standard
    /// output (read as ``FileHandle/readToEndRetryingInterrupts()`` says why), its standard error
    /// dropped. For a test's tool whose output is its answer (git's listing, Chromium's DOM).
    package static func output(of executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }
}
