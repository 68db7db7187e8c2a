import CLinux
import ControllerFSM
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program the checks start: standard input from /dev/null, and nothing else of this process
/// open in it but the standard streams it is given (posix_spawn closes every descriptor from 3 up
/// in the child, whatever another thread has open at that moment: a daemon holding a `ctl`'s
/// output pipe would keep the `ctl`'s reader waiting for as long as the daemon runs). Its reads
/// are bounded by a deadline, so a child that hangs fails the check instead of stalling it.
public struct ChildProcess: Sendable {
    public let pid: pid_t
    public let arguments: [String]

    /// How a finished run ended and what it wrote.
    public struct Finished: Sendable {
        /// The exit status, or 128 + the signal that ended it, as a shell reports it.
        public let status: Int32
        public let output: String
        public let errors: String
    }

    /// Starts `arguments` (the program's path first) with its output and errors appended to
    /// the file at `logPath`.
    public static func start(_ arguments: [String], appendingOutputTo logPath: String) throws(CheckFailure) -> ChildProcess {
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw CheckFailure("cannot open \(logPath) for the log of \(arguments[0]): \(SystemErrno.describe(errno))") }
        defer { close(log) }
        return try spawn(arguments, output: log, errors: log)
    }

    /// Runs `arguments` to its end and returns what it wrote; killed, and a failure thrown, if it
    /// has not ended within `timeout`.
    public static func run(_ arguments: [String], timeout: Duration) throws(CheckFailure) -> Finished {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&outputPipe) == 0, clinux_pipe_cloexec(&errorPipe) == 0 else {
            throw CheckFailure("cannot make a pipe for \(arguments[0]): \(SystemErrno.describe(errno))")
        }
        let child: ChildProcess
        do {
            child = try spawn(arguments, output: outputPipe[1], errors: errorPipe[1])
        } catch {
            for descriptor in outputPipe + errorPipe { close(descriptor) }
            throw error
        }
        close(outputPipe[1])
        close(errorPipe[1])
        defer { close(outputPipe[0]); close(errorPipe[0]) }
        let (output, errors, complete) = readBoth(outputPipe[0], errorPipe[0], until: ContinuousClock.now + timeout)
        if !complete {
            child.signal(SIGKILL)
            _ = child.waitForExit()
            throw CheckFailure("`\(arguments.joined(separator: " "))` did not end within \(timeout)")
        }
        return Finished(status: child.waitForExit(), output: output, errors: errors)
    }

    /// Sends `signal` (SIGTERM, SIGKILL, SIGHUP) to the process.
    public func signal(_ signal: Int32) {
        _ = kill(pid, signal)
    }

    /// Waits for the process to end: its exit status, or 128 + the signal that ended it.
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Self.shellStatus(status)
    }

    /// Waits up to `timeout` for the process to end: its exit status, or nil when it had not
    /// ended, and was then killed (SIGKILL) and waited for.
    public func waitForExit(within timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatusIfEnded() { return status }
            usleep(Self.pollMicroseconds)
        }
        signal(SIGKILL)
        _ = waitForExit()
        return nil
    }

    /// How often ``waitForExit(within:)`` looks.
    static let pollMicroseconds: UInt32 = 20_000

    /// The exit status if the process has ended, else nil (it is left running).
    public func exitStatusIfEnded() -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return Self.shellStatus(status)
    }

    private static func shellStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func spawn(_ arguments: [String], output: Int32, errors: Int32) throws(CheckFailure) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errors, STDERR_FILENO)
        clinux_spawn_close_from(&actions, STDERR_FILENO + 1)
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard result == 0 else { throw CheckFailure("cannot start \(arguments[0]): \(SystemErrno.describe(result))") }
        return ChildProcess(pid: pid, arguments: arguments)
    }

    /// Reads both pipes to their ends, or until `deadline`; whether both ended.
    private static func readBoth(_ first: Int32, _ second: Int32, until deadline: ContinuousClock.Instant) -> (String, String, Bool) {
        var collected: [[UInt8]] = [[], []]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(true) {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            var descriptors = [pollfd(fd: open[0] ? first : -1, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: open[1] ? second : -1, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(clamping: left.components.seconds * 1_000 + Int64(left.components.attoseconds / 1_000_000_000_000_000) + 1)
            guard poll(&descriptors, 2, milliseconds) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where open[index] && descriptors[index].revents != 0 {
                let count = read(descriptors[index].fd, &buffer, buffer.count)
                if count > 0 { collected[index] += buffer[0..<count] } else if count == 0 || errno != EINTR { open[index] = false }
            }
        }
        return (String(decoding: collected[0], as: UTF8.self), String(decoding: collected[1], as: UTF8.self), !open.contains(true))
    }
}
