import ControllerFSM
import Turnstile

#if canImport(Glibc)
import Glibc
#endif

/// `run --record FILE`: the inputs the controller took, written as a scenario. Fed by the
/// reporting thread from the controller's input log, never by the event loop; a write that
/// fails (a full disk) ends the recording with a warning and leaves the controller alone.
public final class FlightRecorder {
    public let path: String
    private var descriptor: Int32
    private var transcriber: ScenarioTranscriber
    /// Why the recording stopped early, once it has.
    public private(set) var failure: String?

    /// Creates (or truncates) `path` and writes the header.
    public init(path: String, board: BoardFile, boardPath: String, origin: MachineInstant) throws(RecorderError) {
        self.path = path
        descriptor = Syscalls.createForWriting(path, mode: 0o644)
        guard descriptor >= 0 else { throw RecorderError(path: path, errno: Syscalls.errno) }
        transcriber = ScenarioTranscriber(board: board, origin: origin)
        write(ScenarioTranscriber.header(board: board, boardPath: boardPath))
        for line in transcriber.opening() { write(line + "\n") }
    }

    deinit {
        if descriptor >= 0 { Syscalls.close(descriptor) }
    }

    public func take(_ record: InputRecord) {
        guard failure == nil else { return }
        for line in transcriber.take(record) { write(line + "\n") }
    }

    /// Closes the scenario with an `end` at `end` and makes the file durable.
    public func finish(at end: MachineInstant) {
        guard failure == nil else { return }
        for line in transcriber.finish(at: end) { write(line + "\n") }
        guard descriptor >= 0 else { return }
        if Syscalls.fsync(descriptor) != 0 {
            // The bytes were written but may not be on the disk: say so rather than leave a
            // recording that looks complete.
            failure = "\(path): \(Syscalls.describe(Syscalls.errno)) making it durable; the recording may be incomplete"
        }
        Syscalls.close(descriptor)
        descriptor = -1
    }

    private func write(_ text: String) {
        guard failure == nil, descriptor >= 0 else { return }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Syscalls.writeFile(descriptor, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            if written < 0 {
                if Syscalls.errno == EINTR { continue }
                failure = "\(path): \(Syscalls.describe(Syscalls.errno)); the recording stopped here (the controller goes on)"
                Syscalls.close(descriptor)
                descriptor = -1
                return
            }
            offset += written
        }
    }
}

public struct RecorderError: Error, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    public var description: String {
        "cannot write the recording \(path): \(Syscalls.describe(errno)) (does the directory exist, and may turnstiled write there?)"
    }
}
