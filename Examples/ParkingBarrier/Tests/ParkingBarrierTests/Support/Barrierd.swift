import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `barrierd` as a user would: `swift build --build-tests` puts it beside the
/// test runner (`.build/debug/barrierd` next to the `.xctest`).
enum Barrierd {
    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String { "exit \(status)\n--- stdout:\n\(stdout)\n--- stderr:\n\(stderr)" }
    }

    static func executable() throws -> URL {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("barrierd")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw NotBuilt(runner: runner.path)
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var runner: String
        var description: String { "barrierd is not built beside the test runner \(runner): build with --build-tests" }
    }

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Standard error stays small, so reading standard output to its end first cannot deadlock.
        let out = readToEnd(output.fileHandleForReading)
        let err = readToEnd(errors.fileHandleForReading)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Everything until end of file, a read interrupted by a signal made again: Foundation's
    /// `readDataToEndOfFile()` traps on `EINTR` (which qemu-user gives when a child's SIGCHLD
    /// comes mid-read, in the aarch64 test run), ending every test, not this one.
    static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }

    /// The final `summary` record of a `--json` output: the state and every counter.
    struct Summary: Equatable, CustomStringConvertible {
        var state: String
        var counters: [String: Int]
        var description: String { "\(state) \(counters.sorted { $0.key < $1.key })" }
    }

    static func summary(_ stdout: String) -> Summary? {
        for line in stdout.split(separator: "\n").reversed() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["type"] as? String == "summary" else { continue }
            guard let state = object["state"] as? String, let counters = object["counters"] as? [String: Int] else { return nil }
            return Summary(state: state, counters: counters)
        }
        return nil
    }
}

/// A directory for one test's files, removed when the test is done with it.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("barrier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
