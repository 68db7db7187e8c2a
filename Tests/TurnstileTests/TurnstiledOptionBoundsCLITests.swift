import Foundation
import Testing

/// Every numeric option of every subcommand, at both edges of its range, through the real
/// binary: a value just inside is accepted (the command goes on, here to a missing file's exit
/// 2), one just outside is refused at parse time with exit 64 and the range in the message —
/// never taken in to overflow later (`--retention-days 106752` trapped an hour into a run).
@Suite("turnstiled bounds every numeric option at parse time (CLI)")
struct TurnstiledOptionBoundsCLITests {
    struct Bounded: Sendable, CustomTestStringConvertible {
        var option: String
        /// The command line before the option: it fails after parsing, on a missing file.
        var command: [String]
        var inside: [String]
        var outside: [String]
        /// What the refusal must say: the range.
        var range: String
        var testDescription: String { "\(command[0]) \(option)" }
    }

    static let missing = "/nonexistent-turnstiled-test/none"
    /// A second missing file: two options naming one file are refused before any is read.
    static let missingDatabase = "/nonexistent-turnstiled-test/counts.sqlite"

    static let options: [Bounded] = [
        Bounded(
            option: "--retention-days", command: ["run", "--board", missing, "--database", missingDatabase],
            inside: ["1", "36500"], outside: ["0", "36501", "106752", "-1", "9223372036854775808"], range: "between 1 and 36500"),
        Bounded(
            option: "--http", command: ["run", "--board", missing],
            inside: ["127.0.0.1:0", "127.0.0.1:65535"], outside: ["127.0.0.1:-1", "127.0.0.1:65536"], range: "port 0 to 65535"),
        Bounded(
            option: "--break-probability", command: ["simulate", "--script", missing],
            inside: ["0", "1"], outside: ["-0.000001", "1.000001", "nan"], range: "between 0 and 1"),
        Bounded(
            option: "--seed", command: ["simulate", "--script", missing],
            inside: ["0", "18446744073709551615"], outside: ["-1", "18446744073709551616"], range: "0 to 18446744073709551615"),
        Bounded(
            option: "--events", command: ["soak", "--board", missing],
            inside: ["10", "1000000000"], outside: ["9", "1000000001", "9223372036854775808"], range: "10 and 1000000000"),
        Bounded(
            option: "--seed", command: ["soak", "--board", missing],
            inside: ["0", "18446744073709551615"], outside: ["-1", "18446744073709551616"], range: "0 to 18446744073709551615"),
    ]

    @Test("just inside the range is accepted; just outside exits 64 naming the range", arguments: options)
    func edges(_ bounded: Bounded) async throws {
        for value in bounded.inside {
            let run = try await Turnstiled.run(bounded.command + ["\(bounded.option)=\(value)"])
            #expect(run.status == 2, "\(bounded.option) \(value) is accepted, and the missing file refused: \(run)")
        }
        for value in bounded.outside {
            let run = try await Turnstiled.run(bounded.command + ["\(bounded.option)=\(value)"])
            #expect(run.status == 64, "\(bounded.option) \(value): \(run)")
            #expect(run.stderr.contains(bounded.range), "\(bounded.option) \(value) names its range: \(run)")
        }
    }
}
