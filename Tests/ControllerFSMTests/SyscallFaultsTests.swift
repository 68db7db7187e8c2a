import Testing
@testable import ControllerFSM

#if canImport(Glibc)
import Glibc
#endif

/// The one way a test fails a system call: armed failures, each taken once in the order armed,
/// forgotten by key; scoped failures, seen on their own task only.
@Suite struct SyscallFaultsTests {
    /// A call and where it is made, as the daemon's layer keys its faults.
    struct Fault: Hashable, Sendable {
        let call: String
        let place: String
    }

    @Test func armedFailuresAreTakenOnceEachInTheOrderArmed() {
        let faults = SyscallFaults<Fault>()
        #expect(!faults.mayFail)
        faults.arm(Fault(call: "accept", place: "a.sock"), errno: EMFILE)
        faults.arm(Fault(call: "accept", place: "a.sock"), errno: ENFILE, count: 2)
        #expect(faults.mayFail)
        #expect(faults.pending(Fault(call: "accept", place: "a.sock")) == 3)
        #expect(faults.take(Fault(call: "accept", place: "b.sock")) == nil, "armed at a.sock only")
        #expect(faults.take(Fault(call: "read", place: "a.sock")) == nil)
        #expect(faults.take(Fault(call: "accept", place: "a.sock")) == EMFILE)
        #expect(faults.fails(Fault(call: "accept", place: "a.sock")) && SystemErrno.current == ENFILE)
        #expect(faults.take(Fault(call: "accept", place: "a.sock")) == ENFILE)
        #expect(faults.take(Fault(call: "accept", place: "a.sock")) == nil)
        #expect(!faults.mayFail)
    }

    @Test func disarmingForgetsOnlyTheFaultsItPicks() {
        let faults = SyscallFaults<Fault>()
        faults.arm(Fault(call: "accept", place: "a.sock"), errno: EMFILE, count: 2)
        faults.arm(Fault(call: "read", place: "a.sock"), errno: EIO)
        faults.arm(Fault(call: "read", place: "b.sock"), errno: EIO)
        faults.disarm { $0.place == "a.sock" }
        #expect(faults.pending(Fault(call: "accept", place: "a.sock")) == 0)
        #expect(faults.pending(Fault(call: "read", place: "a.sock")) == 0)
        #expect(faults.pending(Fault(call: "read", place: "b.sock")) == 1)
        #expect(faults.mayFail, "b.sock's is still armed")
        #expect(faults.take(Fault(call: "read", place: "b.sock")) == EIO)
        #expect(!faults.mayFail, "the count of armed failures came back to 0")
    }

    @Test func aScopedFailureIsSeenOnItsOwnTaskOnly() async {
        let faults = SyscallFaults<Fault>()
        let read = Fault(call: "read", place: "file")
        await faults.failing([read: EIO]) {
            #expect(faults.take(read) == EIO)
            #expect(faults.take(read) == EIO, "a scope fails every call, not only the first")
            let elsewhere = await Task.detached { faults.take(read) }.value
            #expect(elsewhere == nil, "a detached task is outside the scope")
        }
        #expect(faults.take(read) == nil)
    }
}
