import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

extension ControlServerTests {
    /// The flight recorder's file calls, failed on purpose: the recording stops with the
    /// system's reason and the caller goes on. Failed at this test's recording only.
    @Suite("Flight recorder faults")
    final class FlightRecorderFaultTests {
        let scratch: ScratchDirectory
        var file: String { scratch.path + "/recording.txt" }

        /// Where the recorder's calls are failed: its file.
        var place: Syscalls.Place { .path(file) }

        init() throws {
            scratch = try ScratchDirectory()
        }

        deinit { Syscalls.disarm(at: place) }

        private func start() throws -> FlightRecorder<TurnstileApplication> {
            try FlightRecorder<TurnstileApplication>(path: file, board: .defaultSim, boardPath: "sim.toml", origin: MachineInstant(nanoseconds: 0))
        }

        private func fault(atSecond second: Int64) -> InputRecord<TurnstileApplication> {
            InputRecord<TurnstileApplication>(time: MachineInstant(nanoseconds: second * 1_000_000_000), input: .command(.fault))
        }

        @Test func aFullDiskStopsTheRecordingWithTheReason() throws {
            let recorder = try start()
            Syscalls.arm(.fileWrite, at: place, errno: ENOSPC)
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
            Syscalls.arm(.fsync, at: place, errno: EIO)
            recorder.finish(at: MachineInstant(nanoseconds: 1_000_000_000))
            #expect(recorder.failure == "\(file): Input/output error making it durable; the recording may be incomplete")
        }

        @Test func aFileThatIsNotARecordingIsLeftAloneAndRefused() throws {
            let board = "[board]\nname = \"mine\"\n"
            try board.write(toFile: file, atomically: false, encoding: .utf8)
            #expect {
                try self.start()
            } throws: { error in
                "\(error)".contains("cannot record to \(self.file): it is there and is not a turnstiled recording")
            }
            #expect(try String(contentsOfFile: file, encoding: .utf8) == board, "not a byte changed")
            #expect(!FileManager.default.fileExists(atPath: file + ".1"))
        }

        @Test func anEarlierRecordingIsKeptAsGenerationsNotTruncated() throws {
            // Four runs: each earlier recording moves one name up, and the oldest kept falls away.
            for run in 1...(FlightRecorder<TurnstileApplication>.keptGenerations + 2) {
                let recorder = try start()
                recorder.take(fault(atSecond: Int64(run)))
                recorder.finish(at: MachineInstant(nanoseconds: Int64(run + 1) * 1_000_000_000))
            }
            let newest = FlightRecorder<TurnstileApplication>.keptGenerations + 2
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\n\(newest) fault\n"))
            for generation in 1...FlightRecorder<TurnstileApplication>.keptGenerations {
                let text = try String(contentsOfFile: "\(file).\(generation)", encoding: .utf8)
                #expect(text.contains("\n\(newest - generation) fault\n"), "\(file).\(generation): \(text)")
            }
            #expect(!FileManager.default.fileExists(atPath: "\(file).\(FlightRecorder<TurnstileApplication>.keptGenerations + 1)"))
        }

        @Test func aForeignFileAmongTheGenerationsStopsTheRotation() throws {
            _ = try start()
            let foreign = "\(file).\(FlightRecorder<TurnstileApplication>.keptGenerations)"
            try "notes".write(toFile: foreign, atomically: false, encoding: .utf8)
            for _ in 1..<FlightRecorder<TurnstileApplication>.keptGenerations { _ = try? start() }
            #expect(throws: RecorderError.self) { try self.start() }
            #expect(try String(contentsOfFile: foreign, encoding: .utf8) == "notes")
        }

        @Test func aFailedRotationIsRefusedWithTheReason() throws {
            _ = try start()
            Syscalls.arm(.rename, at: place, errno: EROFS)
            #expect {
                try self.start()
            } throws: { error in
                "\(error)" == "cannot record to \(self.file): keeping the earlier recording as \(self.file).1 failed: Read-only file system"
            }
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix(FlightRecorder<TurnstileApplication>.signature), "the earlier one is still there")
        }

        @Test func aRecordingRemovedWithItsDirectoryIsNoticed() throws {
            let directory = scratch.path + "/records"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            let recorder = try FlightRecorder<TurnstileApplication>(path: directory + "/r.txt", board: .defaultSim, boardPath: "sim.toml", origin: .zero)
            try FileManager.default.removeItem(atPath: directory)
            recorder.take(fault(atSecond: 1))
            recorder.finish(at: MachineInstant(nanoseconds: 2_000_000_000))
            #expect(recorder.failure?.contains("the file was removed (or its directory was) while recording") == true, "\(recorder.failure ?? "no failure")")
        }

        @Test func aRecordingReplacedByAnotherFileIsNoticed() throws {
            let recorder = try start()
            try "other".write(toFile: file + ".new", atomically: false, encoding: .utf8)
            #expect(rename(file + ".new", file) == 0)
            recorder.finish(at: MachineInstant(nanoseconds: 2_000_000_000))
            #expect(recorder.failure?.contains("another file took its place while recording") == true, "\(recorder.failure ?? "no failure")")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "other", "the other file is not written to")
        }

        @Test func twoOptionsNamingOneFileClash() throws {
            let board = scratch.path + "/board.toml"
            try "x".write(toFile: board, atomically: false, encoding: .utf8)
            #expect(DaemonPaths.clash(among: [("--board", board), ("--record", scratch.path + "/./board.toml")])
                == "--board and --record name the same file (\(scratch.path)/./board.toml); each needs a file of its own")
            // Neither exists yet: their directories decide.
            #expect(DaemonPaths.clash(among: [("--record", scratch.path + "/a.db"), ("--database", scratch.path + "/sub/../a.db")]) == nil,
                    "sub/ does not exist, so the paths cannot be resolved as one")
            try FileManager.default.createDirectory(atPath: scratch.path + "/sub", withIntermediateDirectories: false)
            #expect(DaemonPaths.clash(among: [("--record", scratch.path + "/a.db"), ("--database", scratch.path + "/sub/../a.db")]) != nil)
            #expect(DaemonPaths.clash(among: [("--record", scratch.path + "/a"), ("--database", scratch.path + "/b")]) == nil)
        }

        @Test func aFileThatCannotBeCreatedIsRefusedWithTheReason() {
            Syscalls.arm(.open, at: place, errno: EACCES)
            #expect {
                try self.start()
            } throws: { error in
                (error as? RecorderError)?.description
                    == "cannot write the recording \(self.file): Permission denied (does the directory exist, and may turnstiled write there?)"
            }
        }
    }
}
