import ControllerFSM

#if canImport(Glibc)
import Glibc
#endif

/// Why the count store could not be opened, read or written. Each message names the file, what
/// went wrong (SQLite's own words where it had some) and what to do. `daemon` is the daemon whose
/// database it is (``ControllerApplication/daemonName``, `turnstiled`), as the fix names it.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database's directory does not exist.
    case directoryMissing(path: String, directory: String, daemon: String)
    /// The file or its directory cannot be written (the directory must be writable too: SQLite
    /// keeps the write-ahead log and its index next to the database).
    case notWritable(path: String, what: String, daemon: String)
    /// The file cannot be read.
    case notReadable(path: String)
    /// There is no database at `path` (only when opening for reading: a writer creates one).
    case missing(path: String, daemon: String)
    /// A reader found a file of 0 bytes at `path`: no database was ever written there.
    case empty(path: String, daemon: String)
    /// `path` is not a regular file (a directory, a device).
    case notAFile(path: String)
    /// The file is damaged, truncated or not a database at all: refused, and left as it was.
    case corrupt(path: String, sqlite: String)
    /// Another process (a second instance of the daemon) is recording into the file.
    case inUse(path: String, daemon: String)
    /// The file was deleted or replaced while this store was recording into it.
    case fileReplaced(path: String, daemon: String)
    /// A valid SQLite database that some other program made: refused, so nothing is written
    /// into it.
    case foreignDatabase(path: String, daemon: String)
    /// The database was migrated by a newer version of the daemon, whose schema this one does not know.
    case newerSchema(path: String, unknownMigrations: [String], daemon: String)
    /// `retentionDays` outside `minimumRetentionDays...maximumRetentionDays`.
    case invalidRetention(days: Int)
    /// `append` before `beginSession`: a caller's mistake.
    case noSession(path: String)
    /// A counter in the ledger went down within one session: the entries come from a controller
    /// that restarted without a new `beginSession`. Nothing of the batch was written.
    case counterWentBackwards(path: String, counter: String, from: Int, to: Int)
    /// A value read from the database is not one the daemon writes (text where a count belongs,
    /// a negative count, one too large to add to): refused, naming where it is, rather than
    /// trusted into a count or a trap.
    case invalidValue(path: String, table: String, row: String, column: String, value: String, expected: String, daemon: String)
    /// The file of counts a stopped daemon could not write (`UnwrittenCounts`) cannot be read
    /// as one: nothing was taken from it.
    case invalidUnwrittenFile(path: String, line: Int, reason: String)
    /// The unwritten-counts file names a session the database does not have: it belongs to
    /// another database.
    case unwrittenFileForeign(path: String, database: String, session: Int64)
    /// SQLite failed while opening, reading or writing (a full disk, an I/O error, a lock held
    /// too long).
    case sqlite(path: String, operation: String, code: Int32, message: String)
    /// SQLite's library (`libsqlite3.so.0`) could not be loaded: `reason` is the loader's
    /// message, or the function the file lacks. Only the store needs it.
    case sqliteUnavailable(path: String, reason: String)
    /// A system call on the file or its directory failed, before SQLite saw the file (too many
    /// open files, a read-only file system, an I/O error): `errno` is the system's reason.
    case system(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .directoryMissing(let path, let directory, let daemon):
            return "cannot open the count database \(path): the directory \(directory) does not exist; "
                + "create it and give it to the daemon's user (e.g. `install -d -o \(daemon) -g \(daemon) \(directory)`)"
        case .notWritable(let path, let what, let daemon):
            return "cannot write the count database \(path): \(what) is not writable by this user; "
                + "give the daemon's user write access to it (e.g. `chown \(daemon):\(daemon) \(what)`)"
        case .notReadable(let path):
            return "cannot read the count database \(path): permission denied; "
                + "run as a user in its group or grant read access (e.g. `chmod g+r \(path)`)"
        case .missing(let path, let daemon):
            return "there is no count database at \(path); check the path (`\(daemon) run --database \(path)` creates it)"
        case .empty(let path, let daemon):
            return "\(path) is empty (0 bytes): no count database was ever written there; check the path "
                + "(`\(daemon) run --database \(path)` makes it one)"
        case .notAFile(let path):
            return "the count database \(path) is not a regular file; give the path of a file"
        case .corrupt(let path, let sqlite):
            return "refusing the count database \(path): it is damaged or not a database (SQLite: \(sqlite)); "
                + "the file was kept as it is. Move it aside (e.g. `mv \(path) \(path).damaged`) and start "
                + "with a new one, or restore a backup; `sqlite3 \(path) .recover` may save its rows"
        case .inUse(let path, let daemon):
            return "the count database \(path) is in use by another \(daemon) (it holds the file's lock); "
                + "stop that one first (e.g. `systemctl stop \(daemon)`) or give this one another --database"
        case .fileReplaced(let path, let daemon):
            return "the count database \(path) was deleted or replaced while \(daemon) was recording into it; "
                + "counts from now on would go to a file nobody reads, so recording stopped. "
                + "Put the file back or restart \(daemon) (it then opens whatever is at the path)"
        case .foreignDatabase(let path, let daemon):
            return "refusing \(path): it is an SQLite database, but not a \(daemon) count database "
                + "(it has tables and no \(daemon) schema); nothing was written. Give --database another path"
        case .newerSchema(let path, let unknown, let daemon):
            return "refusing the count database \(path): a newer \(daemon) changed its schema "
                + "(migrations \(unknown.joined(separator: ", ")) unknown to this version); run the newer \(daemon) "
                + "or restore a backup made for this one"
        case .invalidRetention(let days):
            return "invalid retention of \(days) days: keep events from \(StoreLimits.minimumRetentionDays) "
                + "to \(StoreLimits.maximumRetentionDays) days, or give no retention to keep them all"
        case .noSession(let path):
            return "nothing recorded in \(path): the store was given ledger entries before a session began (call beginSession first)"
        case .counterWentBackwards(let path, let counter, let from, let to):
            return "nothing recorded in \(path): the counter \(counter) went from \(from) to \(to) within one session; "
                + "a restarted controller needs a new session (beginSession)"
        case .invalidValue(let path, let table, let row, let column, let value, let expected, let daemon):
            return "refusing the count database \(path): table \(table), row \(row), column \(column) holds \(value), "
                + "where \(daemon) writes \(expected); the file was kept as it is. It was changed by something other than "
                + "\(daemon): restore a backup, or correct that row (`sqlite3 \(path)`) and start again"
        case .invalidUnwrittenFile(let path, let line, let reason):
            return "cannot take in the unwritten counts in \(path), line \(line): \(reason); nothing was taken from it "
                + "and it was kept as it is. Correct the line, or move the file aside (its counts are then not in the database)"
        case .unwrittenFileForeign(let path, let database, let session):
            return "cannot take in the unwritten counts in \(path): they belong to session \(session), which \(database) does "
                + "not have (the file belongs to another database); move it beside that database, or aside"
        case .sqlite(let path, let operation, let code, let message):
            return "cannot \(operation) the count database \(path): \(message) (SQLite code \(code))\(Self.advice(code: code, path: path))"
        case .sqliteUnavailable(let path, let reason):
            return "cannot open the count database \(path): SQLite's library \(Self.sqliteLibrary) could not be loaded (\(reason)); "
                + "install it (`sudo apt install \(Self.sqlitePackage)`). Only the count database needs it: `simulate` and the "
                + "commands without --database run without it"
        case .system(let path, let operation, let errno):
            return "cannot \(operation) the count database \(path): \(SystemErrno.describe(errno))\(Self.advice(errno: errno, path: path))"
        }
    }

    /// What to do about the errnos the file checks and the lock meet, with a leading "; ".
    private static func advice(errno: Int32, path: String) -> String {
        switch errno {
        case EMFILE: "; this process has too many open files: raise its limit (LimitNOFILE= in the service's unit, or `ulimit -n`)"
        case ENFILE: "; the system has too many open files: raise fs.file-max or stop what holds them"
        case EROFS: "; the file system is read-only: remount it read-write or give --database a path on a writable one"
        case ENOSPC, EDQUOT: diskFull(path)
        case EIO: storageFailed
        case ENOLCK: "; the file system gives no locks (a network file system?): put the database on a local file system"
        case EACCES, EPERM: "; check the permissions of every directory on the way to it (`namei -l \(path)`)"
        default: ""
        }
    }

    private static func diskFull(_ path: String) -> String { "; the disk is full: free space on the file system of \(path)" }
    private static let storageFailed = "; the storage failed: check the disk (`dmesg`) and the file system"

    /// The file the store loads SQLite from, and the Debian package that installs it.
    static let sqliteLibrary = "libsqlite3.so.0"
    static let sqlitePackage = "libsqlite3-0"

    private static func advice(code: Int32, path: String) -> String {
        switch code & 0xFF {
        case SQLiteError.full: diskFull(path)
        case SQLiteError.busy, SQLiteError.locked: "; another process holds the database locked: stop it or try again"
        case SQLiteError.readOnly, SQLiteError.permission: "; give the daemon's user write access to \(path) and its directory"
        case SQLiteError.ioError: storageFailed
        case SQLiteError.cannotOpen: "; check that the file and its directory exist and are accessible"
        default: ""
        }
    }

    /// The StoreError for a failure SQLite reported while doing `operation` on `path`.
    static func from(_ error: any Error, path: String, operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? SQLiteUnavailable { return .sqliteUnavailable(path: path, reason: error.reason) }
        guard let error = error as? SQLiteError else {
            return .sqlite(path: path, operation: operation, code: -1, message: "\(error)")
        }
        switch error.primaryCode {
        case SQLiteError.corrupt, SQLiteError.notADatabase:
            return .corrupt(path: path, sqlite: error.message)
        default:
            return .sqlite(path: path, operation: operation, code: error.code, message: error.message)
        }
    }
}
