/// An arbitrary-precision signed integer, just large enough for the mapping's
/// exact path: add, subtract, multiply, compare, and a quotient that fits `Int`.
///
/// Magnitudes are little-endian base-2³² limbs with no leading zero limbs; zero
/// has no limbs and is never negative.
package struct ExactInteger: Sendable {
    package private(set) var negative: Bool
    package private(set) var limbs: [UInt32]

    package static let zero = ExactInteger(negative: false, limbs: [])

    private init(negative: Bool, limbs: [UInt32]) {
        var limbs = limbs
        while let last = limbs.last, last == 0 { limbs.removeLast() }
        self.negative = limbs.isEmpty ? false : negative
        self.limbs = limbs
    }

    package init(_ value: Int) {
        self.init(negative: value < 0, magnitude: UInt64(value.magnitude))
    }

    package init(negative: Bool, magnitude: UInt64) {
        self.init(
            negative: negative,
            limbs: [
                UInt32(truncatingIfNeeded: magnitude), UInt32(truncatingIfNeeded: magnitude >> 32),
            ])
    }

    package var isZero: Bool { limbs.isEmpty }

    /// This value times 2^`bits`.
    package func shiftedLeft(_ bits: Int) -> ExactInteger {
        precondition(bits >= 0, "shift must not be negative")
        if isZero || bits == 0 { return self }
        let limbShift = bits / 32
        let bitShift = UInt32(bits % 32)
        var out = [UInt32](repeating: 0, count: limbShift + limbs.count + 1)
        for (i, limb) in limbs.enumerated() {
            let wide = UInt64(limb) << UInt64(bitShift)
            out[i + limbShift] |= UInt32(truncatingIfNeeded: wide)
            out[i + limbShift + 1] |= UInt32(truncatingIfNeeded: wide >> 32)
        }
        return ExactInteger(negative: negative, limbs: out)
    }

    package var bitWidth: Int {
        guard let last = limbs.last else { return 0 }
        return (limbs.count - 1) * 32 + (32 - last.leadingZeroBitCount)
    }

    package static prefix func - (value: ExactInteger) -> ExactInteger {
        ExactInteger(negative: !value.negative, limbs: value.limbs)
    }

    package static func + (lhs: ExactInteger, rhs: ExactInteger) -> ExactInteger {
        if lhs.negative == rhs.negative {
            return ExactInteger(negative: lhs.negative, limbs: addMagnitudes(lhs.limbs, rhs.limbs))
        }
        switch compareMagnitudes(lhs.limbs, rhs.limbs) {
        case 0: return .zero
        case 1:
            return ExactInteger(
                negative: lhs.negative, limbs: subtractMagnitudes(lhs.limbs, rhs.limbs))
        default:
            return ExactInteger(
                negative: rhs.negative, limbs: subtractMagnitudes(rhs.limbs, lhs.limbs))
        }
    }

    package static func - (lhs: ExactInteger, rhs: ExactInteger) -> ExactInteger {
        lhs + (-rhs)
    }

    package static func * (lhs: ExactInteger, rhs: ExactInteger) -> ExactInteger {
        if lhs.isZero || rhs.isZero { return .zero }
        var out = [UInt32](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for (i, a) in lhs.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, b) in rhs.limbs.enumerated() {
                let t = UInt64(a) * UInt64(b) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            out[i + rhs.limbs.count] = UInt32(truncatingIfNeeded: carry)
        }
        return ExactInteger(negative: lhs.negative != rhs.negative, limbs: out)
    }

    /// -1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs`.
    package static func compare(_ lhs: ExactInteger, _ rhs: ExactInteger) -> Int {
        if lhs.negative != rhs.negative { return lhs.negative ? -1 : 1 }
        let magnitude = compareMagnitudes(lhs.limbs, rhs.limbs)
        return lhs.negative ? -magnitude : magnitude
    }

    /// `⌊self / divisor⌋` for a positive divisor, or `nil` when it may not fit in `Int`.
    package func flooredQuotient(dividingBy divisor: ExactInteger) -> Int? {
        precondition(!divisor.isZero && !divisor.negative, "divisor must be positive")
        let shift = bitWidth - divisor.bitWidth
        if shift > Int.bitWidth - 2 { return nil }
        var remainder = ExactInteger(negative: false, limbs: limbs)
        var quotient = 0
        if shift >= 0 {
            for bit in stride(from: shift, through: 0, by: -1) {
                let part = divisor.shiftedLeft(bit)
                if Self.compareMagnitudes(remainder.limbs, part.limbs) >= 0 {
                    remainder = remainder - part
                    quotient |= 1 << bit
                }
            }
        }
        if !negative { return quotient }
        return remainder.isZero ? -quotient : -quotient - 1
    }

    private static func compareMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] {
            return a[i] < b[i] ? -1 : 1
        }
        return 0
    }

    private static func addMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        let (long, short) = a.count >= b.count ? (a, b) : (b, a)
        var out = [UInt32](repeating: 0, count: long.count + 1)
        var carry: UInt64 = 0
        for i in 0..<long.count {
            let t = UInt64(long[i]) + (i < short.count ? UInt64(short[i]) : 0) + carry
            out[i] = UInt32(truncatingIfNeeded: t)
            carry = t >> 32
        }
        out[long.count] = UInt32(carry)
        return out
    }

    /// `a − b` for `a ≥ b`.
    private static func subtractMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out = a
        var borrow: Int64 = 0
        for i in 0..<a.count {
            var t = Int64(a[i]) - (i < b.count ? Int64(b[i]) : 0) - borrow
            borrow = 0
            if t < 0 {
                t += 1 << 32
                borrow = 1
            }
            out[i] = UInt32(t)
        }
        return out
    }
}

/// An exact rational number `numerator / denominator` with a positive
/// denominator; never reduced (the mapping's expressions are shallow).
package struct ExactRational: Sendable {
    package var numerator: ExactInteger
    package var denominator: ExactInteger

    package init(numerator: ExactInteger, denominator: ExactInteger) {
        precondition(!denominator.isZero, "denominator must not be zero")
        if denominator.negative {
            self.numerator = -numerator
            self.denominator = -denominator
        } else {
            self.numerator = numerator
            self.denominator = denominator
        }
    }

    package init(_ value: Int) {
        self.init(numerator: ExactInteger(value), denominator: ExactInteger(1))
    }

    /// The exact value of a finite `Double`.
    package init(_ value: Double) {
        precondition(value.isFinite, "only finite values are exact rationals")
        if value == 0 {
            self.init(0)
            return
        }
        let significand =
            value.significandBitPattern
            | (value.isNormal ? UInt64(1) << UInt64(Double.significandBitCount) : 0)
        let exponent =
            (value.isNormal ? Int(value.exponentBitPattern) : 1) - 1023
            - Double.significandBitCount
        let mantissa = ExactInteger(negative: value < 0, magnitude: significand)
        if exponent >= 0 {
            self.init(
                numerator: mantissa.shiftedLeft(exponent), denominator: ExactInteger(1 as Int))
        } else {
            self.init(
                numerator: mantissa, denominator: ExactInteger(1 as Int).shiftedLeft(-exponent))
        }
    }

    package static func + (lhs: ExactRational, rhs: ExactRational) -> ExactRational {
        ExactRational(
            numerator: lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator,
            denominator: lhs.denominator * rhs.denominator)
    }

    package static func - (lhs: ExactRational, rhs: ExactRational) -> ExactRational {
        ExactRational(
            numerator: lhs.numerator * rhs.denominator - rhs.numerator * lhs.denominator,
            denominator: lhs.denominator * rhs.denominator)
    }

    package static func * (lhs: ExactRational, rhs: ExactRational) -> ExactRational {
        ExactRational(
            numerator: lhs.numerator * rhs.numerator,
            denominator: lhs.denominator * rhs.denominator)
    }

    package static func / (lhs: ExactRational, rhs: ExactRational) -> ExactRational {
        ExactRational(
            numerator: lhs.numerator * rhs.denominator,
            denominator: lhs.denominator * rhs.numerator)
    }

    /// -1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs`.
    package static func compare(_ lhs: ExactRational, _ rhs: ExactRational) -> Int {
        ExactInteger.compare(lhs.numerator * rhs.denominator, rhs.numerator * lhs.denominator)
    }

    package static func min(_ a: ExactRational, _ b: ExactRational) -> ExactRational {
        compare(a, b) <= 0 ? a : b
    }

    package static func max(_ a: ExactRational, _ b: ExactRational) -> ExactRational {
        compare(a, b) >= 0 ? a : b
    }

    package var sign: Int { numerator.isZero ? 0 : (numerator.negative ? -1 : 1) }

    /// `⌊self⌋`, or `nil` when it does not fit in ±2⁶².
    package func floor() -> Int? {
        numerator.flooredQuotient(dividingBy: denominator)
    }

    /// `⌈self⌉`, or `nil` when it does not fit in ±2⁶².
    package func ceiling() -> Int? {
        guard
            let negatedFloor = ExactRational(numerator: -numerator, denominator: denominator)
                .floor()
        else {
            return nil
        }
        return -negatedFloor
    }
}
