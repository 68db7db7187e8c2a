import ControllerFSM
import ControllerHost

#if canImport(Glibc)
import Glibc
#endif

/// `run --record FILE`: the inputs the controller took, written as a scenario. Fed by the
/// reporting thread from the controller's input log, never by the event loop; a write that
/// fails (a full disk) ends the recording with a warning and leaves the controller alone.
///
/// It never overwrites a file that is not a recording of its own, and never truncates one
/// that is: an earlier recording at the path is kept as `FILE.1` (the one before as `FILE.2`,
/// up to ``keptGenerations``), so a restart after a crash keeps the crash's record. A file
/// removed or replaced while recording (its directory deleted, say) is noticed and the
/// recording stops with a warning instead of writing on into a file nobody can read.
public final class FlightRecorder<App: ControllerApplication> {
    /// How every recording begins: what tells one of ours from any other file at the path
    /// (`# Recorded by turnstiled run --record`).
    public static var signature: String { "# Recorded by \(App.daemonName) run --record" }
    /// Earlier recordings kept beside the new one, `FILE.1` (the newest) to `FILE.3`.
    public static var keptGenerations: Int { FlightRecorderLimits.keptGenerations }
    /// How often, at most, the file is checked to be still the one at the path.
    public static var fileCheckInterval: Duration { FlightRecorderLimits.fileCheckInterval }

    public let path: String
    private var descriptor: Int32
    private var transcriber: ScenarioTranscriber<App>
    /// The device and inode the recording was created as.
    private let identity: (device: UInt64, inode: UInt64)
    private let clock = MonotonicClock()
    private var nextFileCheck: MachineInstant
    /// Why the recording stopped early, once it has.
    public private(set) var failure: String?

    /// Keeps an earlier recording at `path` as `path.1` (refusing any other file there),
    /// creates `path` and writes the header.
    public init(path: String, board: Board<App>, boardPath: String, origin: MachineInstant) throws(RecorderError) {
        self.path = path
        try Self.makeRoom(at: path)
        descriptor = Syscalls.createNew(path, mode: 0o644)
        guard descriptor >= 0 else { throw RecorderError(path: path, errno: Syscalls.errno, daemon: App.daemonName) }
        let status = Syscalls.descriptorStatus(descriptor, at: .path(path))
        identity = (UInt64(status?.st_dev ?? 0), UInt64(status?.st_ino ?? 0))
        nextFileCheck = clock.now() + Self.fileCheckInterval
        transcriber = ScenarioTranscriber(board: board, origin: origin)
        write(ScenarioTranscriber<App>.header(board: board, boardPath: boardPath))
        for line in transcriber.opening() { write(line + "\n") }
    }

    deinit {
        if descriptor >= 0 { Syscalls.close(descriptor) }
    }

    public func take(_ record: InputRecord<App>) {
        checkFile()
        guard failure == nil else { return }
        for line in transcriber.take(record) { write(line + "\n") }
    }

    /// Closes the scenario with an `end` at `end` and makes the file durable.
    public func finish(at end: MachineInstant) {
        verifyFile()
        guard failure == nil else { return }
        for line in transcriber.finish(at: end) { write(line + "\n") }
        guard descriptor >= 0 else { return }
        if Syscalls.fsync(descriptor, at: .path(path)) != 0 {
            // The bytes were written but may not be on the disk: say so rather than leave a
            // recording that looks complete.
            failure = "\(path): \(Syscalls.describe(Syscalls.errno)) making it durable; the recording may be incomplete"
        }
        Syscalls.close(descriptor)
        descriptor = -1
    }

    /// Checks, at most every ``fileCheckInterval``, that the recording is still the file at
    /// its path; the reporting thread calls it on every drain, so an idle daemon notices too.
    public func checkFile() {
        guard failure == nil, descriptor >= 0 else { return }
        let now = clock.now()
        guard now >= nextFileCheck else { return }
        nextFileCheck = now + Self.fileCheckInterval
        verifyFile()
    }

    private func verifyFile() {
        guard failure == nil, descriptor >= 0 else { return }
        // A status that cannot be read says nothing either way: the writes will tell.
        guard let open = Syscalls.descriptorStatus(descriptor, at: .path(path)) else { return }
        let named = Syscalls.followedStatus(path)
        let replaced = named.map { UInt64($0.st_dev) != identity.device || UInt64($0.st_ino) != identity.inode } ?? false
        let gone = !replaced && (open.st_nlink == 0 || (named == nil && Syscalls.errno == ENOENT))
        guard gone || replaced else { return }
        failure = "\(path): " + (replaced ? "another file took its place while recording" : "the file was removed (or its directory was) while recording")
            + "; the recording stopped here (the controller goes on; start the daemon again to record anew)"
        Syscalls.close(descriptor)
        descriptor = -1
    }

    /// Refuses anything at `path` but a recording of ours, and keeps one that is (and the
    /// generations before it) under the numbered names; afterwards nothing is at `path`.
    public static func makeRoom(at path: String) throws(RecorderError) {
        try checkReplaceable(path)
        guard Syscalls.fileStatus(path) != nil else { return }
        for generation in stride(from: keptGenerations, to: 0, by: -1) {
            let newer = generation == 1 ? path : "\(path).\(generation - 1)"
            let older = "\(path).\(generation)"
            guard Syscalls.fileStatus(newer) != nil else { continue }
            // The oldest generation falls away only if it is ours too.
            try checkReplaceable(older)
            try checkReplaceable(newer)
            guard Syscalls.rename(newer, to: older, at: .path(path)) == 0 else {
                throw RecorderError(path: path, reason: "keeping the earlier recording as \(older) failed: \(Syscalls.describe(Syscalls.errno))")
            }
        }
    }

    /// Nothing at `path`, an empty file, or a regular file that begins as a recording does:
    /// anything else is refused with what it is.
    public static func checkReplaceable(_ path: String) throws(RecorderError) {
        guard let status = Syscalls.fileStatus(path) else {
            if Syscalls.errno == ENOENT { return }
            throw RecorderError(path: path, errno: Syscalls.errno, daemon: App.daemonName)
        }
        guard Syscalls.isRegularFile(status) else {
            throw RecorderError(path: path, reason: "it is not a plain file (a directory, link, socket or device); choose another path for the recording")
        }
        let descriptor = Syscalls.openForReading(path)
        guard descriptor >= 0 else { throw RecorderError(path: path, errno: Syscalls.errno, daemon: App.daemonName) }
        defer { Syscalls.close(descriptor) }
        var head = [UInt8](repeating: 0, count: signature.utf8.count)
        var count = 0
        while count < head.count {
            let read = head.withUnsafeMutableBytes { Syscalls.readFile(descriptor, UnsafeMutableRawBufferPointer(rebasing: $0[count...]), at: .path(path)) }
            if read < 0 && Syscalls.errno == EINTR { continue }
            guard read >= 0 else { throw RecorderError(path: path, errno: Syscalls.errno, daemon: App.daemonName) }
            if read == 0 { break }
            count += read
        }
        guard count == 0 || head[..<count].elementsEqual(signature.utf8) else {
            throw RecorderError(
                path: path,
                reason: "it is there and is not a \(App.daemonName) recording (it does not begin with \"\(signature)\"), so it was left alone; "
                    + "choose another path, or move the file away")
        }
    }

    private func write(_ text: String) {
        guard failure == nil, descriptor >= 0 else { return }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Syscalls.writeFile(descriptor, UnsafeRawBufferPointer(rebasing: $0[offset...]), at: .path(path)) }
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

/// The recorder's bounds (a generic class holds no stored statics).
enum FlightRecorderLimits {
    /// Earlier recordings kept beside the new one.
    static let keptGenerations = 3
    /// How often, at most, the file is checked to be still the one at the path.
    static let fileCheckInterval = Duration.seconds(1)
}

public struct RecorderError: Error, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    /// Why the path was refused, when no system call failed.
    public var reason: String?
    /// The daemon that could not write (`turnstiled`), as the fix names it.
    public var daemon: String

    public init(path: String, errno: Int32, daemon: String) {
        self.path = path
        self.errno = errno
        self.daemon = daemon
    }

    public init(path: String, reason: String) {
        self.path = path
        self.errno = 0
        self.reason = reason
        daemon = ""
    }

    public var description: String {
        if let reason { return "cannot record to \(path): \(reason)" }
        return "cannot write the recording \(path): \(Syscalls.describe(errno)) (does the directory exist, and may \(daemon) write there?)"
    }
}
