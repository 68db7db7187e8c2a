import ControllerFSM
import Logging

/// The daemon's warnings, each kind rate-limited so a chattering input or a script at the
/// control socket cannot flood the journal; a line that passes says how many were held back.
public final class DaemonWarnings: Sendable {
    /// A burst of this many warnings of one kind passes at once; then they wait for the next
    /// period.
    static let burst = 5
    static let period = Duration.seconds(10)

    private let logger: Logger
    /// The daemon's name, as systemd knows its unit.
    private let program: String
    private let clock = MonotonicClock()
    private let refusals = RateLimiter(burst: burst, period: period)
    private let losses = RateLimiter(burst: burst, period: period)
    private let chip = RateLimiter(burst: burst, period: period)
    private let systemd = RateLimiter(burst: burst, period: period)
    private let overrides = RateLimiter(burst: burst, period: period)
    private let unsettled = RateLimiter(burst: burst, period: period)

    public init(logger: Logger, program: String) {
        self.logger = logger
        self.program = program
    }

    public func refused(_ what: String) { warn("refused \(what)", limiter: refusals, kind: .refusal) }

    public func lostEdges(new: Int, total: Int) {
        warn("\(new) input edge(s) were lost before they could be read (\(total) in all): the kernel's event buffer overflowed", limiter: losses)
    }

    /// The machine's work sent events while its run-to-completion queue was full: lost.
    public func droppedSends(new: Int, total: Int) {
        warn("\(new) event(s) the machine's work sent were lost, its run-to-completion queue full (\(total) in all); raise the application's queueCapacity or send fewer per step", limiter: losses, kind: .fault)
    }

    public func reportFellBehind(transitions: Int, writes: Int) {
        warn("the report fell behind: \(transitions) transitions and \(writes) output writes were not reported", limiter: losses)
    }

    public func systemdNotHearing(new: Int, total: Int, reason: String) {
        warn("\(new) message(s) to systemd could not be sent (\(total) in all; the latest: \(reason)); if WATCHDOG=1 keeps failing, systemd will restart \(program) as hung", limiter: systemd)
    }

    /// The host began holding an output at a level other than the one the machine asks for:
    /// said once per episode (rate-limited as every warning).
    public func outputOverridden(_ role: String, reason: String, total: Int) {
        warn("output \(role) is not driven to the level the machine asks for: \(reason) (\(total) such episode(s) since start)", limiter: overrides, kind: .fault)
    }

    public func chipLost(_ error: String) { warn("\(error); degraded, looking for the chip every second", limiter: chip, kind: .fault) }

    /// A step of the machine did not settle (`report` names the cycle): told every time, rate
    /// limited as every warning.
    public func machineUnsettled(_ report: String) { warn("degraded: \(report)", limiter: unsettled, kind: .fault) }

    public func chipBack() { logger.notice("the GPIO chip is back: lines requested again, running") }

    private func warn(_ message: String, limiter: RateLimiter, kind: JournalRecordKind? = nil) {
        let (admitted, held) = limiter.admit(at: clock.now().nanoseconds)
        guard admitted else { return }
        logger.warning("\(message)\(held > 0 ? " (\(held) similar warning(s) held back)" : "")", metadata: kind?.metadata())
    }
}
