import Turnstile

/// The turnstile's data as the Swift baselines keep it: what `TurnstileContext` holds, plus the
/// state timer that ControllerFSM keeps for its machines (a hand-written machine keeps its own).
struct TurnstileModel {
    var counters = TurnstileCounters()
    var credit = 0
    var stateBeforeEmergency = TurnstileState.locked
    var outputs = TurnstileOutputs()
    var timerArmed = false
    var timerDeadline: Int64 = 0
    /// The time events are stamped with, in nanoseconds.
    var now: Int64 = 0
    let relockTimeout: Int64 = 5_000_000_000
    let repairPeriod: Int64 = 5_000_000_000

    mutating func setOutputs(lock: Bool, ready: Bool, inhibit: Bool) {
        outputs.lock = lock
        outputs.ready = ready
        outputs.inhibit = inhibit
    }

    mutating func startTimer(after delay: Int64) {
        timerArmed = true
        timerDeadline = now + delay
    }

    mutating func expireCredit() {
        counters.expiredCredits += credit
        credit = 0
    }

    mutating func takeCoinOutOfService() {
        counters.coins += 1
        counters.coinsOutOfService += 1
    }

    func snapshot(state: TurnstileState) -> TurnstileSnapshot {
        TurnstileSnapshot(
            state: state, credit: credit, stateBeforeEmergency: stateBeforeEmergency,
            counters: counters, outputs: outputs, timerArmed: timerArmed
        )
    }
}
