/// SplitMix64 (Steele, Lea and Flood): a tiny, fast, seedable generator.
///
/// The simulator uses it, never the system generator, so that `--seed` repeats a run exactly.
/// Its bounded helpers are written out here rather than taken from the standard library's
/// `random(in:using:)`, whose algorithm is not promised to stay the same across Swift versions.
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The generator's whole state: saving it and seeding with it resumes the sequence.
    public private(set) var state: UInt64

    /// Any seed is fine, 0 included.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound` (Lemire's multiply-and-reject: no modulo bias).
    public mutating func next(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "next(below:) needs a positive bound")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// Uniform in `[0, 1)`, with 53 random bits: for probabilities.
    public mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
