/// What the stress tests of the lock-free parts (the rings, the inboxes, the lock) hand from one
/// thread to another: who made it, its sequence number, three words derived from them and a
/// checksum of all, written by the producer. Six words, across a cache line's boundary in most
/// slots: a consumer that reads a slot before the producer's writes are visible (a publication
/// not ordered after them), or while the next producer overwrites it (a slot handed back before
/// it was read), finds a record that is not whole.
package struct StressPayload: Sendable, Equatable {
    package var producer: UInt64
    package var sequence: UInt64
    package var first: UInt64
    package var second: UInt64
    package var third: UInt64
    package var checksum: UInt64

    package init(producer: Int, sequence: Int) {
        self.producer = UInt64(truncatingIfNeeded: producer)
        self.sequence = UInt64(truncatingIfNeeded: sequence)
        first = Self.mix(self.producer << 40 ^ self.sequence)
        second = Self.mix(first)
        third = Self.mix(second)
        checksum = Self.checksum(self.producer, self.sequence, first, second, third)
    }

    /// Whether every word is the one the producer computed from `producer` and `sequence`.
    package var isWhole: Bool {
        first == Self.mix(producer << 40 ^ sequence) && second == Self.mix(first) && third == Self.mix(second)
            && checksum == Self.checksum(producer, sequence, first, second, third)
    }

    /// SplitMix64's finaliser: every bit of the result depends on every bit of `value`.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Not variadic: an array for every record would make the check slower than the ring.
    static func checksum(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64, _ e: UInt64) -> UInt64 {
        mix(mix(mix(mix(mix(0x5EED ^ a) ^ b) ^ c) ^ d) ^ e)
    }
}

/// What a consumer of stress payloads saw, checked record by record against each producer's
/// sequence: whole or torn, in order, duplicated, and how many sequence numbers it skipped (the
/// records the structure counts as lost, where it may lose any).
package struct StressTally: Sendable, Equatable {
    package var taken = 0
    package var torn = 0
    package var outOfOrder = 0
    package var skipped = 0
    /// The next sequence number expected of each producer.
    package var next: [UInt64]

    package init(producers: Int) {
        next = [UInt64](repeating: 0, count: producers)
    }

    package mutating func take(_ payload: StressPayload) {
        taken += 1
        guard payload.isWhole, payload.producer < UInt64(next.count) else {
            torn += 1
            return
        }
        let producer = Int(payload.producer)
        if payload.sequence < next[producer] {
            outOfOrder += 1  // taken twice, or after a later one
        } else {
            skipped += Int(payload.sequence - next[producer])
            next[producer] = payload.sequence + 1
        }
    }
}

/// How long a stress test hammers at most: each stops at its iteration bound or at this
/// deadline, whichever comes first, and checks what it did. A plain x86_64 run reaches the bound
/// in a fraction of it; under qemu (the arm64 lane runs the suite under qemu-user, where a
/// contended futex or a spinning thread costs tens of times what it does natively) or a
/// sanitizer, the deadline keeps each test to about this long.
package struct StressDeadline: Sendable {
    package static let budget: Duration = .milliseconds(500)
    private let end: ContinuousClock.Instant

    package init(_ budget: Duration = StressDeadline.budget) {
        end = ContinuousClock.now + budget
    }

    package var hasPassed: Bool { ContinuousClock.now >= end }
}
