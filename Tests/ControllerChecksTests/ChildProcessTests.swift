import ControllerChecks
import ControllerTestSupport
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
        if Emulation.isActive {
            // Under qemu-user, glibc's posix_spawn cannot say that the exec failed: it clones
            // with CLONE_VM | CLONE_VFORK and the child writes the exec's error into the
            // parent's memory, but qemu-user runs that clone as a plain fork (no shared memory),
            // so posix_spawn returns 0 and the child ends with 127, as a shell's "not found"
            // does. Either answer names the failure; on a Pi (and natively) it is the first.
            do throws(CheckFailure) {
                let finished = try ChildProcess.run(["/nonexistent/daemon"], timeout: .seconds(30))
                #expect(finished.status == 127)
            } catch {
                #expect(error.message.hasPrefix("cannot start /nonexistent/daemon:"))
            }
            return
        }
        let failure = #expect(throws: CheckFailure.self) { try ChildProcess.run(["/nonexistent/daemon"], timeout: .seconds(5)) }
        #expect(failure?.message.hasPrefix("cannot start /nonexistent/daemon:") == true)
    }
}
