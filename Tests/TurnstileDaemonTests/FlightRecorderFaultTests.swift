import ControllerFSM
import Foundation
import Testing
import Turnstile
@testable import TurnstileDaemon

#if canImport(Glibc)
import Glibc
#endif

extension ControlServerTests {
    /// The flight recorder's file calls, failed on purpose: the recording stops with the
    /// system's reason and the caller goes on. Nested in the control server's suite so that its
    /// serialization covers these too: both arm process-wide failures, and its set-up disarms
    /// every one.
    @Suite("Flight recorder faults")
    final class FlightRecorderFaultTests {
        let scratch: ScratchDirectory
        var file: String { scratch.path + "/recording.txt" }

        init() throws {
            scratch = try ScratchDirectory()
            Syscalls.injected.disarmAll()
        }

        deinit { Syscalls.injected.disarmAll() }

        private func start() throws -> FlightRecorder {
            try FlightRecorder(path: file, board: .defaultSim, boardPath: "sim.toml", origin: MachineInstant(nanoseconds: 0))
        }

        private func fault(atSecond second: Int64) -> InputRecord {
            InputRecord(time: MachineInstant(nanoseconds: second * 1_000_000_000), input: .command(.fault))
        }

        @Test func aFullDiskStopsTheRecordingWithTheReason() throws {
            let recorder = try start()
            Syscalls.injected.arm(.fileWrite, errno: ENOSPC)
            recorder.take(fault(atSecond: 1))
            #expect(recorder.failure == "\(file): No space left on device; the recording stopped here (the controller goes on)")

            // Later inputs are dropped and the end is not written, without a crash.
            recorder.take(fault(atSecond: 2))
            recorder.finish(at: MachineInstant(nanoseconds: 3_000_000_000))
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.hasPrefix("# Recorded by turnstiled run --record"))
            #expect(!text.contains("fault") && !text.contains("end"), "\(text)")
        }

        @Test func aRecordingWrittenWithoutFaultsEnds() throws {
            let recorder = try start()
            recorder.take(fault(atSecond: 1))
            recorder.finish(at: MachineInstant(nanoseconds: 3_000_000_000))
            #expect(recorder.failure == nil)
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains(" fault\n") && text.hasSuffix(" end\n"), "\(text)")
        }

        @Test func aFailedSyncSaysTheRecordingMayBeIncomplete() throws {
            let recorder = try start()
            Syscalls.injected.arm(.fsync, errno: EIO)
            recorder.finish(at: MachineInstant(nanoseconds: 1_000_000_000))
            #expect(recorder.failure == "\(file): Input/output error making it durable; the recording may be incomplete")
        }

        @Test func aFileThatCannotBeCreatedIsRefusedWithTheReason() {
            Syscalls.injected.arm(.open, errno: EACCES)
            #expect {
                try self.start()
            } throws: { error in
                (error as? RecorderError)?.description
                    == "cannot write the recording \(self.file): Permission denied (does the directory exist, and may turnstiled write there?)"
            }
        }
    }
}
