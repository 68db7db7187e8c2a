#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plain files and standard error: the flight recorder's file and the log handler's lines.
extension Syscalls {
    /// `path` created, open for writing, close-on-exec; -1 with `errno` set, and `EEXIST` when
    /// something is there already: nothing is ever truncated.
    static func createNew(_ path: String, mode: mode_t) -> Int32 {
        if fails(.open, at: .path(path)) { return -1 }
        return Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    }

    /// `path` open for reading, close-on-exec; -1 with `errno` set.
    static func openForReading(_ path: String) -> Int32 {
        if fails(.fileRead, at: .path(path)) { return -1 }
        return Glibc.open(path, O_RDONLY | O_CLOEXEC)
    }

    /// A plain `read(2)`; how many bytes were read, or -1 with `errno` set.
    static func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer, at place: Place) -> Int {
        if fails(.fileRead, at: place) { return -1 }
        return Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    }

    /// Renames `from` to `to`, replacing `to`; -1 with `errno` set.
    static func rename(_ from: String, to: String, at place: Place) -> Int32 {
        if fails(.rename, at: place) { return -1 }
        return Glibc.rename(from, to)
    }

    /// The open file's `stat`, or nil with `errno` set.
    static func descriptorStatus(_ descriptor: Int32, at place: Place) -> stat? {
        if fails(.fileStatus, at: place) { return nil }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? status : nil
    }

    /// The `stat` of what `path` names, following a symbolic link, or nil with `errno` set.
    static func followedStatus(_ path: String) -> stat? {
        if fails(.fileStatus, at: .path(path)) { return nil }
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    static func isRegularFile(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFREG }

    /// `path` with every link and `..` resolved (it must exist), or nil.
    static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A plain `write(2)`; how many bytes were written, or -1 with `errno` set. `fault`: the
    /// armed failure it takes (the log handler passes its own).
    static func writeFile(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, fault: Call = .fileWrite, at place: @autoclosure () -> Place) -> Int {
        if fails(fault, at: place()) { return -1 }
        return Glibc.write(descriptor, bytes.baseAddress, bytes.count)
    }

    /// Makes what was written to `descriptor` durable; -1 with `errno` set.
    static func fsync(_ descriptor: Int32, at place: Place) -> Int32 {
        if fails(.fsync, at: place) { return -1 }
        return Glibc.fsync(descriptor)
    }
}
