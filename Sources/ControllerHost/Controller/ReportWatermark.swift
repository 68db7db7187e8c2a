import ControllerFSM
import Synchronization

/// How far the controller's trace and output log hold whole steps, published together in one
/// atomic word at the end of each of the controller's calls.
///
/// A reporter on another thread drains the two rings one after the other, so it could catch a
/// step between its dispatch (in the trace) and the writes it caused (in the output log), and
/// print the transition one drain before its writes. Reading this first and printing nothing
/// past it keeps every transition with its writes.
///
/// Memory orderings: one writer (the controller's thread), any number of readers.
/// - `publish` stores the word releasing, after the rings' own releasing index stores of the
///   records it counts; a reader's acquiring load of the word (`settled`, `current`) that sees
///   it therefore sees those records in the rings: a drain after it gets at least that many.
///   Relaxed, a reader on arm64 could see the word before the records and hold back nothing.
/// - The doorbell's `ring()` then fences before it looks for sleepers, and its sleepers fence
///   before they read the word (see `Doorbell`): the word needs no stronger ordering for that.
@usableFromInline
package final class ReportWatermark: Sendable {
    /// The trace's count in the high half, the output log's in the low half: one word, so a
    /// reader never sees one ring's count from a later step than the other's.
    private let word = Atomic<UInt64>(0)

    /// Rung after each publication: the reporter and the store's recorder sleep on it while
    /// the controller is idle, with no timeout: every ring the controller writes (the ledger
    /// and the input log too) is written before a publication, and the doorbell's fences make
    /// all of it visible to a sleeper that looks, or wake it.
    package let doorbell = Doorbell()

    package init() {}

    /// The whole word: what a drainer compares with the word at its last drain before sleeping
    /// on `doorbell` (the doorbell's fence orders this load after its count of sleepers).
    package var current: UInt64 { word.load(ordering: .acquiring) }

    /// Records each ring had received when the controller's last call returned, modulo 2^32:
    /// compare them with counts of your own by wrapping difference.
    package var settled: (trace: UInt32, outputs: UInt32) {
        let value = word.load(ordering: .acquiring)
        return (UInt32(truncatingIfNeeded: value >> 32), UInt32(truncatingIfNeeded: value))
    }

    /// Called by the controller's thread, after the records of its call were written (in every
    /// ring it has, not only the two it counts).
    @usableFromInline func publish(trace: Int, outputs: Int) {
        let value = UInt64(UInt32(truncatingIfNeeded: trace)) << 32 | UInt64(UInt32(truncatingIfNeeded: outputs))
        // Releasing: the records counted are in their rings for whoever sees this word. The
        // doorbell's fence orders it before the look at its sleepers.
        word.store(value, ordering: .releasing)
        doorbell.ring()
    }
}
