import ControllerTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `turnstiled` executable as a user would, capturing its exit status and output.
///
/// The executable is found beside the test runner (`builtExecutable(named:)`).
enum Turnstiled {
    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        // Standard error first: it says why a run failed, and standard output can be long.
        var description: String { "exit \(status)\n--- stderr:\n\(stderr)\n--- stdout:\n\(stdout)" }
    }

    /// The executable, or why it was not found.
    static let executable: Swift.Result<URL, NotBuilt> = builtExecutable(named: "turnstiled")

    /// Runs `turnstiled arguments`, feeding `stdin` (or nothing). The child's environment is the
    /// test's without `NO_COLOR`, plus `environment`.
    /// - Parameter stdoutPath: a file to give the process as standard output instead of a pipe
    ///   (`/dev/full`, to see a write fail); `stdout` is then empty.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    stdoutPath: String? = nil) async throws -> Run {
        try await offThePool { try runBlocking(arguments, stdin: stdin, environment: environment, stdoutPath: stdoutPath) }
    }

    /// `run`, on the calling thread until the child exits.
    private static func runBlocking(_ arguments: [String], stdin: String?, environment: [String: String],
                                    stdoutPath: String?) throws -> Run {
        let process = try prepare(arguments, environment: environment)
        let output = Pipe()
        let errors = Pipe()
        if let stdoutPath {
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
            try output.fileHandleForWriting.close()
        } else {
            process.standardOutput = output
        }
        process.standardError = errors
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        // A child that never started (its program could not be executed: status 127) or ended
        // before reading closes its end, and the write fails (EPIPE). That fails this test, with
        // the child's status and messages; Foundation's non-throwing `write(_:)` would trap and
        // end the whole test run.
        var inputRefused: (any Error)?
        if let stdin {
            do { try input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) } catch { inputRefused = error }
            try? input.fileHandleForWriting.close()
        }
        // Standard error stays small (a few messages), so reading standard output to its end
        // first cannot deadlock on a full pipe.
        let out = output.fileHandleForReading.readToEndRetryingInterrupts()
        let err = errors.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        let run = Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
        if let inputRefused { throw InputRefused(run: run, error: inputRefused) }
        return run
    }

    /// The child did not take its standard input.
    struct InputRefused: Error, CustomStringConvertible {
        var run: Run
        var error: any Error
        var description: String {
            "turnstiled did not read its standard input (\(error)); it ended with status \(run.status), standard error: \(run.stderr)"
        }
    }

    /// Runs `turnstiled arguments` with standard output on a pseudo-terminal, as in an
    /// interactive shell; returns the exit status and what the terminal received.
    /// - Parameter standardError: where standard error goes (a file, to see what a redirected
    ///   stream gets); nowhere when nil.
    static func runOnTerminal(_ arguments: [String], environment: [String: String] = [:], standardError: FileHandle? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws -> (status: Int32, output: String) {
        try await offThePool {
            try runOnTerminalBlocking(arguments, environment: environment, standardError: standardError, sourceLocation: sourceLocation)
        }
    }

    private static func runOnTerminalBlocking(_ arguments: [String], environment: [String: String], standardError: FileHandle?,
                                              sourceLocation: SourceLocation) throws -> (status: Int32, output: String) {
        let pty = try #require(PseudoTerminal.functions, "libc lacks posix_openpt, grantpt, unlockpt or ptsname",
                               sourceLocation: sourceLocation)
        let master = pty.openpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0, "posix_openpt failed: errno \(errno)", sourceLocation: sourceLocation)
        defer { close(master) }
        try #require(pty.grantpt(master) == 0 && pty.unlockpt(master) == 0, "grantpt/unlockpt failed", sourceLocation: sourceLocation)
        let name = try #require(pty.ptsname(master).map { String(cString: $0) }, sourceLocation: sourceLocation)
        let slave = open(name, O_RDWR | O_NOCTTY)
        try #require(slave >= 0, "cannot open \(name): errno \(errno)", sourceLocation: sourceLocation)

        let process = try prepare(arguments, environment: environment)
        process.standardOutput = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardError = standardError ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        close(slave)  // Only the child holds the terminal now: reading ends when it exits.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count > 0 { received += buffer[..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: received, as: UTF8.self))
    }

    private static func prepare(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = try executable.get()
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return process
    }
}

/// glibc's pseudo-terminal functions, which its Swift module map leaves out (they need
/// `_XOPEN_SOURCE`), looked up at run time.
enum PseudoTerminal {
    typealias OpenPT = @convention(c) (Int32) -> Int32
    typealias Control = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    struct Functions {
        var openpt: OpenPT
        var grantpt: Control
        var unlockpt: Control
        var ptsname: Name
    }

    static let functions: Functions? = {
        func symbol<T>(_ name: String, as _: T.Type) -> T? {
            dlsym(nil, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let openpt = symbol("posix_openpt", as: OpenPT.self), let grantpt = symbol("grantpt", as: Control.self),
              let unlockpt = symbol("unlockpt", as: Control.self), let ptsname = symbol("ptsname", as: Name.self)
        else { return nil }
        return Functions(openpt: openpt, grantpt: grantpt, unlockpt: unlockpt, ptsname: ptsname)
    }()
}

/// A `turnstiled` started in the background, as a supervisor starts a daemon: its standard
/// output and error are collected as they come, and the test sends it signals and waits for
/// lines or its exit.
final class BackgroundTurnstiled: @unchecked Sendable {
    /// What the daemon wrote, collected by the reader threads. A class of its own: the threads
    /// hold it, not the daemon's handle, so a test that drops the handle (one that failed
    /// half-way) ends the daemon in `deinit` instead of leaving it running behind the reader
    /// threads' reference.
    private final class Output: @unchecked Sendable {
        // Safety: `stdout` and `stderr` are guarded by `lock`.
        let lock = NSLock()
        var stdout = ""
        var stderr = ""
    }

    private let process: Process
    private let output = Output()
    private let readers = DispatchGroup()
    let arguments: [String]

    /// Starts `turnstiled arguments` with the test's environment plus `environment`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        self.arguments = arguments
        process = Process()
        process.executableURL = try Turnstiled.executable.get()
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let outputPipe = Pipe()
        let errors = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        collect(outputPipe.fileHandleForReading, isError: false)
        collect(errors.fileHandleForReading, isError: true)
    }

    deinit {
        // A test that failed half-way must not leave a daemon behind.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private func collect(_ handle: FileHandle, isError: Bool) {
        readers.enter()
        let output = output, readers = readers
        let thread = Thread {
            while true {
                let data = handle.readRetryingInterrupts()
                if data.isEmpty { break }
                let text = String(decoding: data, as: UTF8.self)
                output.lock.lock()
                if isError { output.stderr += text } else { output.stdout += text }
                output.lock.unlock()
            }
            readers.leave()
        }
        thread.start()
    }

    var stdout: String { output.lock.lock(); defer { output.lock.unlock() }; return output.stdout }
    var stderr: String { output.lock.lock(); defer { output.lock.unlock() }; return output.stderr }
    var isRunning: Bool { process.isRunning }
    /// Whether it ended by a signal's default action (after `waitForExit`).
    var killedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }
    var processIdentifier: Int32 { process.processIdentifier }

    /// The JSON objects printed so far (with `--json`), one per complete line.
    var records: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Sends `signal` to the daemon.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Polls until `condition` holds or `timeout` passes; whether it held. Returns as soon as
    /// it holds: give a bound from `TestTimeouts`, with its reason.
    @discardableResult
    func wait(for timeout: Duration, until condition: (BackgroundTurnstiled) async -> Bool) async -> Bool {
        await poll(for: timeout) { await condition(self) }
    }

    /// SIGTERM, then up to `timeout` for the exit (then SIGKILL), on the calling thread: for a
    /// `defer`, which cannot wait asynchronously.
    func stop(timeout: Duration) {
        send(SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits up to `timeout` for the daemon to exit; its status, or nil (then it is killed).
    func waitForExit(timeout: Duration) async -> Int32? {
        guard await wait(for: timeout, until: { !$0.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        // Everything it wrote, up to the pipes' end (which the exit closes): bounded like the
        // other waits on a daemon.
        _ = readers.wait(timeout: .now() + .seconds(Int(TestTimeouts.daemon.components.seconds)))
        return process.terminationStatus
    }

    var description: String { "turnstiled \(arguments.joined(separator: " "))\n--- stdout:\n\(stdout)\n--- stderr:\n\(stderr)" }
}
