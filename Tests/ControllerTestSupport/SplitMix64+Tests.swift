import ControllerFSMSim

/// The tests' draws from the simulator's generator, so that a seed gives the same scenario or
/// machine on every machine. Plain modulo, not `next(below:)`'s rejection: the seeds the tests
/// name were found with these draws, and must keep giving what they gave.
extension SplitMix64 {
    /// Within `range` (modulo its width).
    package mutating func next(in range: ClosedRange<UInt64>) -> UInt64 {
        range.lowerBound + next() % (range.upperBound - range.lowerBound + 1)
    }

    /// In `0..<bound` (modulo `bound`).
    package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with `probability`, in steps of one millionth.
    package mutating func chance(_ probability: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < probability }
}
