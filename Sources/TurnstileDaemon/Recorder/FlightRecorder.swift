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
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RecorderError(path: path, errno: errno) }
        transcriber = ScenarioTranscriber(board: board, origin: origin)
        write(ScenarioTranscriber.header(board: board, boardPath: boardPath))
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    public func take(_ record: InputRecord) {
        guard failure == nil else { return }
        for line in transcriber.take(record) { write(line + "\n") }
    }

    /// Closes the scenario with an `end` at `end` and makes the file durable.
    public func finish(at end: MachineInstant) {
        guard failure == nil else { return }
        for line in transcriber.finish(at: end) { write(line + "\n") }
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
            descriptor = -1
        }
    }

    private func write(_ text: String) {
        guard failure == nil, descriptor >= 0 else { return }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = "\(path): \(String(cString: strerror(errno))); the recording stopped here (the controller goes on)"
                close(descriptor)
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
        "cannot write the recording \(path): \(String(cString: strerror(errno))) (does the directory exist, and may turnstiled write there?)"
    }
}
