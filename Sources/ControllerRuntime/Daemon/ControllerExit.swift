import ControllerDaemon

/// A run that stopped for a reason already said on standard error, and the process's exit
/// status for it (the numbers every command of a controller shares, `--help` lists them). The
/// command line exits with ``rawValue``; a `main` of its own does the same:
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

    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    public var description: String { "exit status \(rawValue)" }

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
