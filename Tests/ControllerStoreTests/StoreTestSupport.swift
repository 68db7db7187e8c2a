import ControllerFSM
import Foundation
import ControllerHost
import Turnstile
import TurnstileTestSupport
@testable import ControllerStore

/// The store as the turnstile uses it.
typealias TurnstileStore = CountStore<TurnstileApplication>
typealias TurnstileRecorder = StoreRecorder<TurnstileApplication>
typealias TurnstileTotals = DurableTotals<TurnstileApplication>
typealias TurnstileUnwritten = UnwrittenCounts<TurnstileApplication>

extension DurableTotals where App == TurnstileApplication {
    var credit: Int { gauge("credit") }
    /// Every coin is a passage, an expired credit, a coin out of service, credit voided by a
    /// restart or credit standing (`TurnstileApplication.durableInvariants`).
    var moneyInvariantHolds: Bool { invariantsHold }
}

extension UnwrittenCounts where App == TurnstileApplication {
    var credit: Int { gauges["credit"] ?? 0 }
}

/// A fresh directory for one test's database, removed when the test is done with it.
final class ScratchDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("turnstile-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String = "counts.sqlite") -> String { "\(path)/\(name)" }
}

/// A turnstile's ledger as a controller would write it: counters only go up, the money
/// invariant holds in every entry.
struct LedgerTape {
    var time = MachineInstant(nanoseconds: 1_000)
    var state = TurnstileState.locked
    var credit = 0
    var counters = TurnstileCounters()
    var entries: [LedgerEntry<TurnstileApplication>] = []

    /// Each step one millisecond after the last.
    static let step = Duration.milliseconds(1)

    mutating func coin() {
        counters.coins += 1
        if state == .locked || state == .unlocked {
            credit += 1
            state = .unlocked
        } else {
            counters.coinsOutOfService += 1
        }
        emit(.edge(.coin, active: true))
    }

    mutating func push() {
        if state == .unlocked {
            counters.passages += 1
            credit -= 1
            if credit == 0 { state = .locked }
        } else if state == .locked {
            counters.forcedPushes += 1
        } else {
            counters.ignored += 1
        }
        emit(.edge(.push, active: true))
    }

    mutating func expire() {
        guard state == .unlocked else { return }
        counters.expiredCredits += credit
        credit = 0
        state = .locked
        emit(nil)
    }

    mutating func emergency(_ on: Bool) {
        if on {
            counters.expiredCredits += credit
            credit = 0
            state = .emergency
        } else {
            state = .locked
        }
        emit(.command(on ? .emergencyOn : .emergencyOff))
    }

    mutating func emit(_ cause: ControllerInput<TurnstileApplication>?) {
        time = time + Self.step
        entries.append(LedgerEntry<TurnstileApplication>(time: time, state: state, credit: credit, counters: counters, cause: cause))
    }

    /// The entries written since the last call.
    mutating func take() -> [LedgerEntry<TurnstileApplication>] {
        defer { entries.removeAll() }
        return entries
    }
}

extension CountStore {
    /// A session whose controller clock's `MachineInstant.zero` is `wallClock`.
    @discardableResult
    func beginTestSession(at wallClock: Date = Date(timeIntervalSince1970: 1_700_000_000)) throws -> DurableTotals<App> {
        try beginSession(monotonicOrigin: .zero, wallClockOrigin: wallClock)
    }
}

/// The bytes of a file, to check that a refused file was left exactly as it was.
func contents(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}
