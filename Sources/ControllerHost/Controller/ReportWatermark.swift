import ControllerFSM

/// How far the controller's trace and output log hold whole steps, published together in one
/// atomic word at the end of each of the controller's calls.
///
/// A reporter on another thread drains the two rings one after the other, so it could catch a
/// step between its dispatch (in the trace) and the writes it caused (in the output log), and
/// print the transition one drain before its writes. Reading this first and printing nothing
/// past it keeps every transition with its writes.
package final class ReportWatermark: Sendable {
    /// Rung after each publication, which is its word: the trace's count in the high half, the
    /// output log's in the low half (one word, so a reader never sees one ring's count from a
    /// later step than the other's). The reporter and the store's recorder sleep on it while
    /// the controller is idle, with no timeout: every ring the controller writes (the ledger
    /// and the input log too) is written before a publication, which wakes them.
    package let doorbell = Doorbell()

    package init() {}

    /// The whole word, sequentially consistent: what a drainer compares with the word at its
    /// last drain before sleeping on `doorbell` (see `Doorbell`).
    package var current: UInt64 { doorbell.publication }

    /// Records each ring had received when the controller's last call returned, modulo 2^32:
    /// compare them with counts of your own by wrapping difference.
    package var settled: (trace: UInt32, outputs: UInt32) {
        let value = doorbell.publication
        return (UInt32(truncatingIfNeeded: value >> 32), UInt32(truncatingIfNeeded: value))
    }

    /// Called by the controller's thread, after the records of its call were written (in every
    /// ring it has, not only the two it counts).
    func publish(trace: Int, outputs: Int) {
        let value = UInt64(UInt32(truncatingIfNeeded: trace)) << 32 | UInt64(UInt32(truncatingIfNeeded: outputs))
        // Sequentially consistent, not only releasing: ordered before the doorbell's look at
        // its sleepers (one store either way; see `Doorbell`).
        doorbell.ring(publishing: value)
    }
}
