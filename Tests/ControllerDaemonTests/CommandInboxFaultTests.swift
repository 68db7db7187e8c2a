import Testing
import ControllerHost
import Turnstile
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

extension ControlServerTests {
    /// The command inbox's pipe, failed on purpose. Nested in the control server's suite, like
    /// the flight recorder's faults, so its serialization covers these process-wide failures.
    @Suite("Command inbox faults")
    final class CommandInboxFaultTests {
        init() { Syscalls.injected.disarmAll() }

        deinit { Syscalls.injected.disarmAll() }

        @Test func aPipeThatCannotBeMadeSaysWhatToRaise() {
            Syscalls.injected.arm(.pipe, errno: EMFILE)
            let error = #expect(throws: InboxError.self) { try CommandInbox() }
            #expect(error?.description == "cannot make the event loop's command pipe: Too many open files; turnstiled has all the descriptors it may: raise LimitNOFILE= in its unit (or ulimit -n)")
        }

        @Test func aFailedWakeUpStillDeliversTheCommand() throws {
            let inbox = try CommandInbox()
            // The pipe full: the loop is awake already and takes the command at this turn.
            Syscalls.injected.arm(.wake, errno: EAGAIN)
            #expect(inbox.post(.event(.repair)))
            #expect(Syscalls.injected.pending(.wake) == 0)
            #expect(inbox.depth == 1)
            #expect(inbox.take() == .event(.repair))

            Syscalls.injected.arm(.wake, errno: EAGAIN)
            inbox.requestStop()
            #expect(inbox.take() == .stop)
        }

        @Test func clearingTheWakeUpsEmptiesThePipe() throws {
            let inbox = try CommandInbox()
            // One wake-up byte more than a read of the drain takes.
            for _ in 0..<CommandInbox.capacity { inbox.post(.event(.fault)) }
            inbox.requestStop()
            #expect(isReadable(inbox.pollDescriptor))
            inbox.clearWakeUps()
            #expect(!isReadable(inbox.pollDescriptor))
            #expect(inbox.depth == CommandInbox.capacity)
        }

        private func isReadable(_ descriptor: Int32) -> Bool {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&waiting, 1, 0) == 1
        }
    }
}
