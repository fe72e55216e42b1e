/// The cosine and sine the contract turns by, computed by CropKit itself so
/// that every platform gets the same bits: the straightened frame's numbers
/// (and so its crops) are the same on Linux, on Apple platforms and in
/// WebAssembly, which have no common `sin`/`cos` (glibc's differs from a
/// correctly rounded one in about 1 angle in 400, Apple's and a wasm
/// runtime's in others).
///
/// The Taylor series of `sin` and `cos` is summed in double-double
/// arithmetic (about 106 bits) and rounded once to `Double`, which gives the
/// correctly rounded value except where the true value lies within about
/// 2⁻¹⁰⁰ of halfway between two doubles. Meant for `|x| ≤ π/4`, where 14
/// terms leave an error below 2⁻¹¹⁰; ``StraightenedFrame`` reduces every
/// angle to that range first.
package enum Trigonometry {
    /// `sin x` for `|x| ≤ π/4`.
    package static func sine(_ x: Double) -> Double {
        series(x, first: DoubleDouble(x), divisor: { k in Double(2 * k * (2 * k + 1)) })
    }

    /// `cos x` for `|x| ≤ π/4`.
    package static func cosine(_ x: Double) -> Double {
        series(x, first: DoubleDouble(1), divisor: { k in Double((2 * k - 1) * 2 * k) })
    }

    /// `first · Σ (−x²)ᵏ / Π divisor(1…k)`, for k up to 14.
    private static func series(
        _ x: Double, first: DoubleDouble, divisor: (Int) -> Double
    ) -> Double {
        let square = DoubleDouble.product(x, x)
        var term = first
        var sum = first
        for k in 1...14 {
            term = (term * square).divided(by: -divisor(k))
            sum = sum + term
        }
        return sum.high + sum.low
    }
}

/// An unevaluated sum `high + low` with `|low| ≤ ulp(high)/2`: about 106
/// bits of significand, from Dekker's and Knuth's exact `Double` steps
/// (no fused multiply-add, so every platform rounds alike).
struct DoubleDouble {
    var high: Double
    var low: Double

    init(_ value: Double) {
        high = value
        low = 0
    }

    private init(normalizing high: Double, _ low: Double) {
        let sum = high + low
        self.high = sum
        self.low = low - (sum - high)
    }

    /// `a · b` exactly, as a double-double (Dekker's product).
    static func product(_ a: Double, _ b: Double) -> DoubleDouble {
        let p = a * b
        let (ah, al) = split(a)
        let (bh, bl) = split(b)
        let error = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        return DoubleDouble(normalizing: p, error)
    }

    /// `a` as two halves of 26 bits each whose products are exact.
    private static func split(_ a: Double) -> (Double, Double) {
        let c = 134_217_729 * a
        let high = c - (c - a)
        return (high, a - high)
    }

    static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let p = product(a.high, b.high)
        return DoubleDouble(normalizing: p.high, p.low + (a.high * b.low + a.low * b.high))
    }

    static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let s = a.high + b.high
        let bb = s - a.high
        let error = (a.high - (s - bb)) + (b.high - bb) + (a.low + b.low)
        return DoubleDouble(normalizing: s, error)
    }

    /// `self / d`, with one correction step.
    func divided(by d: Double) -> DoubleDouble {
        let q1 = high / d
        let p = DoubleDouble.product(q1, d)
        let remainder = ((high - p.high) - p.low) + low
        return DoubleDouble(normalizing: q1, remainder / d)
    }
}
