import ControllerChecks
import Foundation
import Testing

@Suite struct ChildProcessTests {
    @Test func runCapturesBothStreamsAndTheStatus() throws {
        let finished = try ChildProcess.run(["/bin/sh", "-c", "echo out; echo err >&2; exit 3"], timeout: .seconds(10))
        #expect(finished.status == 3)
        #expect(finished.output == "out\n")
        #expect(finished.errors == "err\n")
    }

    @Test func aSignalEndingIsReportedAsAShellDoes() throws {
        #expect(try ChildProcess.run(["/bin/sh", "-c", "kill -9 $$"], timeout: .seconds(10)).status == 128 + 9)
    }

    @Test func aRunPastItsTimeoutIsKilledAndSaidSo() {
        let started = ContinuousClock.now
        let failure = #expect(throws: CheckFailure.self) { try ChildProcess.run(["/bin/sleep", "30"], timeout: .milliseconds(200)) }
        #expect(failure?.message == "`/bin/sleep 30` did not end within 0.2 seconds")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// The class of bug it exists for: a child holding a pipe of its parent's (another child's
    /// output) keeps that pipe's reader waiting for as long as it runs.
    @Test func aChildHoldsNothingOfItsParentsButItsStandardStreams() throws {
        var leaked: [Int32] = [-1, -1]
        #expect(pipe(&leaked) == 0)
        defer { close(leaked[0]); close(leaked[1]) }
        let listing = try ChildProcess.run(["/bin/sh", "-c", "ls /proc/$$/fd"], timeout: .seconds(10))
        #expect(listing.output.split(separator: "\n").sorted() == ["0", "1", "2"], "the child had \(listing.output)")
    }

    @Test func aProgramThatIsNotThereIsNamed() {
        let failure = #expect(throws: CheckFailure.self) { try ChildProcess.run(["/nonexistent/daemon"], timeout: .seconds(5)) }
        #expect(failure?.message.hasPrefix("cannot start /nonexistent/daemon:") == true)
    }
}
