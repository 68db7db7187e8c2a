import ControllerDaemon

/// A run that stopped: the process's exit status for it (the numbers every command of a
/// controller shares, `--help` lists them), and the reason in the words said on standard error
/// as it stopped, with the error behind it. The command line exits with ``rawValue``; a `main`
/// of its own does the same, and may hand ``reason`` to its own log or act on ``cause``:
///
/// ```swift
/// do {
///     try await Daemon<TurnstileApplication>(options).run()
/// } catch {
///     exit(error.rawValue)
/// }
/// ```
public struct ControllerExit: Error, Equatable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    /// Why the run stopped, as it was said on standard error: what failed, named by its file and
    /// line, chip and line, option or topic, and the fix. `nil` when the run's own report said
    /// it (a failed `expect` is printed with the summary) and for the statuses as constants.
    public let reason: String?
    /// The error that stopped the run, when one did (a `GPIOError`, a `StoreError`, a
    /// `BoardError`, an `MQTTError`, the options' refusal), for code that acts on its cases.
    public let cause: (any Error)?

    public init(_ rawValue: Int32, reason: String? = nil, cause: (any Error)? = nil) {
        self.rawValue = rawValue
        self.reason = reason
        self.cause = cause
    }

    public var description: String { reason.map { "\($0) (exit status \(rawValue))" } ?? "exit status \(rawValue)" }

    /// Two exits are the same when their statuses are: the reason says why, not which.
    public static func == (lhs: ControllerExit, rhs: ControllerExit) -> Bool { lhs.rawValue == rhs.rawValue }

    /// This status for `reason`, which is said on standard error now, as the run stops (an
    /// operator reads it in the journal in its place among the other lines), and carried by the
    /// error to whoever called the run.
    package func said(_ reason: String, cause: (any Error)? = nil) -> ControllerExit {
        Terminal.error(reason)
        return ControllerExit(rawValue, reason: reason, cause: cause)
    }

    /// Any other failure (said on standard error), as ArgumentParser exits for an error it does
    /// not know.
    public static let failure = ControllerExit(1)
    /// An `expect` failed, an invariant broke or an output was not driven as the machine asked.
    public static let expectationFailed = ControllerExit(ExitCodes.expectationFailed)
    /// The daemon refused a request or could not be reached (`ctl`).
    public static let refused = ControllerExit(ExitCodes.refused)
    /// A malformed scenario, board file or option, refused before anything ran.
    public static let badInput = ControllerExit(ExitCodes.badInput)
    /// A GPIO error stopped the controller (a chip not found, a line busy, permission denied).
    public static let gpioError = ControllerExit(ExitCodes.gpioError)
    /// The count database cannot be used (missing, damaged, permissions).
    public static let storeError = ControllerExit(ExitCodes.storeError)
    /// A C library the run opens at run time is not installed (libgpiod, libsqlite3, libmosquitto).
    public static let libraryMissing = ControllerExit(ExitCodes.libraryMissing)
    /// A bad command line or option.
    public static let usage = ControllerExit(ExitCodes.usage)
    /// Standard output could not be written (a full disk, a closed pipe).
    public static let outputFailed = ControllerExit(ExitCodes.outputFailed)
}
