import ControllerFSM
import ControllerHost
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify protocol, spoken directly: datagrams such as `READY=1` to the socket systemd
/// names in `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Without that
/// variable (not started by systemd, or not `Type=notify`) every call does nothing.
///
/// `watchdog()` is called from the event loop: it sends a message built once, so it neither
/// allocates nor blocks (the socket is non-blocking; a lost datagram is not retried, the next
/// one goes at its time). A message that could not be sent is counted, with its reason, for
/// the daemon to report (``failedSends``): a run of lost `WATCHDOG=1` ends with systemd
/// restarting a daemon that was working.
///
/// Memory orderings: a failure stores its reason (relaxed), then counts itself (releasing); a
/// reader loads the count (acquiring), then the reason, so a reader that sees a failure counted
/// sees its reason or a later one, never none. Counted relaxed, the count could be seen first
/// on arm64, and the daemon's log would say "unknown" for a reason it had.
public final class SystemdNotifier: @unchecked Sendable {
    // Safety: every plain field is set in init and only read after (sendto on one socket from
    // several threads is safe); the failure counts are atomics.
    private let socket: Int32
    private let address: sockaddr_un
    private let addressLength: socklen_t
    /// Where a test fails its calls: the socket it was given.
    private let place: Syscalls.Place
    /// How often systemd wants `WATCHDOG=1` (`$WATCHDOG_USEC`), if it watches.
    public let watchdogInterval: Duration?
    private let failures = Atomic<Int>(0)
    private let lastFailure = Atomic<Int32>(0)
    /// Told of each failure: the reporter, which says it in the log, sleeps until then.
    private let changes: StatusChanges?

    /// Reads `$NOTIFY_SOCKET` and `$WATCHDOG_USEC`; `environment` is for tests. `changes` hears
    /// of every message that could not be sent.
    public init(environment: [String: String], changes: StatusChanges? = nil) {
        self.changes = changes
        place = .path(environment["NOTIFY_SOCKET"] ?? "")
        guard let destination = UnixDatagramAddress(environment["NOTIFY_SOCKET"] ?? "") else {
            socket = -1
            address = sockaddr_un()
            addressLength = 0
            watchdogInterval = nil
            return
        }
        address = destination.address
        addressLength = destination.length
        socket = Syscalls.unixDatagramSocket(at: place)
        let socketFailure = socket < 0 ? Syscalls.errno : 0
        // WATCHDOG_PID, when set, must be ours: a child would otherwise feed its parent's dog.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == Syscalls.processID } ?? true
        if forUs, let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 {
            watchdogInterval = .microseconds(micros)
        } else {
            watchdogInterval = nil
        }
        if socketFailure != 0 {
            // systemd asked and will hear nothing (no READY=1, no WATCHDOG=1): one failure to
            // report, with its reason.
            record(failure: socketFailure)
        }
    }

    deinit {
        if socket >= 0 { Syscalls.close(socket) }
    }

    /// Whether systemd listens.
    public var isActive: Bool { socket >= 0 }

    /// Messages systemd did not get (the socket could not be made, or `sendto` failed: its
    /// queue full, systemd gone or restarting), since the start.
    public var failedSends: Int { failures.load(ordering: .acquiring) }

    /// Why the latest of ``failedSends`` failed ("Resource temporarily unavailable"); nil while
    /// none has. Read after ``failedSends``: then never nil if that said one failed.
    public var lastFailureReason: String? {
        let code = lastFailure.load(ordering: .relaxed)
        return code == 0 ? nil : Syscalls.describe(code)
    }

    /// `READY=1` with a status line: the self-test passed.
    public func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// `RELOADING=1` with `MONOTONIC_USEC` (the `CLOCK_MONOTONIC` time the reload began, in
    /// microseconds), as systemd's reload protocol asks: sent before the configuration is read
    /// again, and followed by ``ready(status:)`` once it is taken or refused.
    public func reloading(at time: MachineInstant, status: String) {
        send("RELOADING=1\nMONOTONIC_USEC=\(max(0, time.nanoseconds) / 1_000)\nSTATUS=\(Self.oneLine(status))")
    }

    /// `STOPPING=1`: draining has begun.
    public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(Self.oneLine(status))") }

    /// `STATUS=`: what `systemctl status` shows.
    public func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    /// A newline inside a status would start a new assignment: a line break (the program's own
    /// between two parts of a status) reads as a space; then, as `systemctl status` shows the
    /// line to a person, it is shown as every sink shows a line (any other control or
    /// invisible character escaped, the length bounded).
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }).shownLine
    }

    private static let watchdogMessage: StaticString = "WATCHDOG=1"

    /// `WATCHDOG=1`, from the event loop: a loop that stops turning stops feeding the dog and
    /// systemd restarts the daemon.
    public func watchdog() {
        Self.watchdogMessage.withUTF8Buffer { deliver(UnsafeRawBufferPointer($0)) }
    }

    /// One datagram of `KEY=value` lines.
    public func send(_ message: String) {
        var message = message
        message.withUTF8 { deliver(UnsafeRawBufferPointer($0)) }
    }

    /// Sends once, never waits: a failure is counted and the caller goes on.
    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        guard socket >= 0 else { return }
        let sent = withUnsafePointer(to: address) { Syscalls.sendDatagram(socket, bytes, to: $0, length: addressLength, at: place) }
        if sent < 0 { record(failure: Syscalls.errno) }
    }

    private func record(failure code: Int32) {
        lastFailure.store(code, ordering: .relaxed)
        // Releasing: a reader that sees this count sees the reason stored above.
        failures.add(1, ordering: .releasing)
        changes?.note()
    }
}
