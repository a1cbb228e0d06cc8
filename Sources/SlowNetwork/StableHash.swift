/// FNV-1a, 64 bits: a tiny hash whose value is the same in every process.
///
/// Swift's `Hasher` is seeded per process, so it cannot make anything
/// reproducible; the network derives its faults and icons from this instead.
public enum StableHash {
    public static func fnv1a(_ bytes: some Sequence<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    public static func fnv1a(_ string: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        fnv1a(string.utf8, seed: seed)
    }
}

/// SplitMix64: a small, good, seedable generator. Seeded randomness is what
/// makes a "random" fault the same on every run with the same `--seed`.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1, for probabilities and jitter.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
