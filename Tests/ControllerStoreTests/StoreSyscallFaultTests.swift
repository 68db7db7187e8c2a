import Foundation
import Testing
@testable import ControllerStore

#if canImport(Glibc)
import Glibc
#endif

/// System calls the store makes on its file and directory, failed on purpose: each error names
/// the file, the system's reason and a fix, and no failure leaves the file's descriptor (or its
/// lock) behind. The failures are task-local (`StoreSyscalls.faults.failing`), so these run alongside
/// the tests that open real files; and they are the only way to see a refusal here, since the
/// tests run as root, whom a file's permissions refuse nothing.
@Suite("CountStore: system call faults")
struct StoreSyscallFaultTests {
    let scratch: ScratchDirectory
    let path: String

    init() throws {
        scratch = try ScratchDirectory()
        path = scratch.file()
    }

    /// What `CountStore.open` (or `openForReading`) throws while `calls` fail.
    func openError(
        failing calls: [StoreSyscalls.Call: Int32], reading: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) -> StoreError? {
        #expect(throws: StoreError.self, sourceLocation: sourceLocation) {
            try StoreSyscalls.faults.failing(calls) {
                reading ? try TurnstileStore.openForReading(path: path) : try TurnstileStore.open(path: path)
            }
        }
    }

    @Test("open refused (EACCES): the file is named as not writable, with the fix")
    func openRefused() throws {
        let error = try #require(openError(failing: [.open: EACCES]))
        #expect(error == .notWritable(path: path, what: path, daemon: "turnstiled"))
        #expect("\(error)".contains("chown turnstiled:turnstiled \(path)"))
    }

    @Test("open on a read-only file system (EROFS) says so, not that this user lacks permission")
    func openReadOnlyFileSystem() throws {
        let error = try #require(openError(failing: [.open: EROFS]))
        #expect(error == .system(path: path, operation: "open", errno: EROFS))
        #expect("\(error)" == "cannot open the count database \(path): Read-only file system; the file system is read-only: "
            + "remount it read-write or give --database a path on a writable one")
    }

    @Test("too many open files (EMFILE) names the limit to raise")
    func openTooManyFiles() throws {
        let error = try #require(openError(failing: [.open: EMFILE]))
        #expect(error == .system(path: path, operation: "open", errno: EMFILE))
        let message = "\(error)"
        #expect(message.contains(path) && message.contains("Too many open files") && message.contains("LimitNOFILE="))
    }

    @Test("an I/O error on open names the file, the reason and the disk to check")
    func openIOError() throws {
        let error = try #require(openError(failing: [.open: EIO]))
        #expect(error == .system(path: path, operation: "open", errno: EIO))
        let message = "\(error)"
        #expect(message.hasPrefix("cannot open the count database \(path): Input/output error;"))
        #expect(message.contains("dmesg") && !message.contains("SQLite"))
    }

    @Test("a lock held elsewhere (EWOULDBLOCK) is another turnstiled; the descriptor is closed")
    func lockHeld() throws {
        #expect(openError(failing: [.flock: EWOULDBLOCK]) == .inUse(path: path, daemon: "turnstiled"))
        #expect(descriptors(openOn: path) == 0)
    }

    @Test("a lock the system cannot give (ENOLCK) is named as such; the descriptor is closed")
    func lockUnavailable() throws {
        let error = try #require(openError(failing: [.flock: ENOLCK]))
        #expect(error == .system(path: path, operation: "lock", errno: ENOLCK))
        #expect("\(error)".hasPrefix("cannot lock the count database \(path): No locks available; "))
        #expect(descriptors(openOn: path) == 0)
    }

    @Test("fstat failing after the lock was taken closes the descriptor, and with it the lock")
    func fstatFails() throws {
        let error = try #require(openError(failing: [.fstat: EIO]))
        #expect(error == .system(path: path, operation: "check", errno: EIO))
        #expect(descriptors(openOn: path) == 0)
        let store = try TurnstileStore.open(path: path)
        try store.close()
    }

    @Test("a directory this user may not reach (EACCES) is not called missing")
    func directoryNotReachable() throws {
        let error = try #require(openError(failing: [.stat: EACCES]))
        #expect(error == .system(path: path, operation: "open", errno: EACCES))
        let message = "\(error)"
        #expect(message.contains("Permission denied") && message.contains("namei -l \(path)"))
        #expect(!message.contains("does not exist"))
        #expect(openError(failing: [.stat: ENOENT]) == .directoryMissing(path: path, directory: scratch.path, daemon: "turnstiled"))
    }

    @Test("a directory refused for writing: by its permissions (EACCES), or by its file system (EROFS)")
    func directoryNotWritable() throws {
        #expect(openError(failing: [.access: EACCES]) == .notWritable(path: path, what: scratch.path, daemon: "turnstiled"))
        let error = try #require(openError(failing: [.access: EROFS]))
        #expect(error == .system(path: path, operation: "write", errno: EROFS))
        #expect("\(error)".contains("the file system is read-only"))
    }

    @Test("a reader: a refused stat or access is unreadable, an I/O error is named as one")
    func readerFaults() throws {
        try TurnstileStore.open(path: path).close()
        #expect(openError(failing: [.stat: EACCES], reading: true) == .notReadable(path: path))
        #expect(openError(failing: [.access: EACCES], reading: true) == .notReadable(path: path))
        let error = try #require(openError(failing: [.stat: EIO], reading: true))
        #expect(error == .system(path: path, operation: "open", errno: EIO))
        #expect("\(error)".contains("Input/output error"))
    }

    @Test("a file that cannot be looked at before a write is an I/O error, not a replaced file")
    func identityFails() throws {
        let store = try TurnstileStore.open(path: path)
        try store.beginTestSession()
        var tape = LedgerTape()
        tape.coin()
        let entries = tape.take()
        #expect(throws: StoreError.system(path: path, operation: "check", errno: EIO)) {
            try StoreSyscalls.faults.failing([.stat: EIO]) { try store.append(entries) }
        }
        #expect(try store.append(entries)["coins"] == 1, "the batch is written once the disk answers")
        try store.close()
    }

    @Test("a refused file and a closed store leave no descriptor on the file")
    func descriptorsReleased() throws {
        try Data("coins=12\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try TurnstileStore.open(path: path) }
        #expect(descriptors(openOn: path) == 0, "the lock taken before the check was let go")
        try FileManager.default.removeItem(atPath: path)
        let store = try TurnstileStore.open(path: path)
        #expect(descriptors(openOn: path) > 0)
        try store.close()
        #expect(descriptors(openOn: path) == 0)
    }
}

/// How many of this process's descriptors are open on `path`, from /proc/self/fd: whether the
/// store closed what it opened, which holds while other tests open their own files.
func descriptors(openOn path: String) -> Int {
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == target }.count
}
