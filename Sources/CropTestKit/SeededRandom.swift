/// SplitMix64: the same seed gives the same numbers on every platform and
/// every Swift version (`Int.random(in:using:)`'s algorithm belongs to the
/// standard library and may change; the vectors use this type's own
/// ``int(_:)``). The tests' generated cases and the mapping benchmark draw
/// from it too.
package struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose numbers are fixed by `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`, by the high half of a 128-bit product (no
    /// rejection loop: a bias below 2^-40 for these ranges).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(span.multipliedFullWidth(by: next()).high)
    }

    /// One of `values`.
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

    /// A number in `range` on multiples of 1/64 (exact in `Double` and in
    /// decimal text).
    mutating func sixtyFourths(_ range: ClosedRange<Double>) -> Double {
        Double(int(Int(range.lowerBound * 64)...Int(range.upperBound * 64))) / 64
    }

    /// True one time in `n`.
    mutating func oneIn(_ n: Int) -> Bool { int(1...n) == 1 }
}
