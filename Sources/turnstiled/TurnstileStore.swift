import ControllerStore
import Turnstile

/// The count store and its recorder, holding the turnstile's kinds and its credit.
typealias TurnstileCountStore = CountStore<TurnstileApplication>
typealias TurnstileStoreRecorder = StoreRecorder<TurnstileApplication>

extension DurableTotals where App == TurnstileApplication {
    /// The credit standing after the last recorded step.
    var credit: Int { gauge("credit") }
}

extension UnwrittenCounts where App == TurnstileApplication {
    /// The credit standing after the stopped run's last step.
    var credit: Int { gauges["credit"] ?? 0 }
}
