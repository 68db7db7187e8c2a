/// The exit statuses every command of a controller shares, as numbers: the command line turns
/// them into its own, and the checks that drive a daemon read them here, without the command
/// line.
package enum ExitCodes {
    package static let expectationFailed: Int32 = 1
    package static let refused: Int32 = 1
    package static let badInput: Int32 = 2
    package static let gpioError: Int32 = 3
    package static let storeError: Int32 = 4
    /// A C library the command opens at run time is not installed.
    package static let libraryMissing: Int32 = 5
    package static let usage: Int32 = 64
    package static let outputFailed: Int32 = 74
}
