import CropGeometry
import CropKitTestSupport
import Testing

@Suite(.announcesSkips) struct ExactArithmeticTests {
    @Test func doublesConvertExactly() {
        // 0.1 is 3602879701896397 / 2^55 exactly.
        let tenth = ExactRational(0.1)
        let expected = ExactRational(
            numerator: ExactInteger(3_602_879_701_896_397),
            denominator: ExactInteger(1).shiftedLeft(55))
        #expect(ExactRational.compare(tenth, expected) == 0)
        #expect(ExactRational.compare(ExactRational(0x1p-1074), ExactRational(0)) == 1)
        #expect(ExactRational(-0x1p600).floor() == nil)
        #expect(ExactRational(-2.5).floor() == -3)
        #expect(ExactRational(-2.5).ceiling() == -2)
        #expect(ExactRational(7).floor() == 7)
    }

    @Test func integerArithmeticAgreesWithInt128() {
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            let a = Int.random(in: -(1 << 61)...(1 << 61), using: &generator)
            let b = Int.random(in: -(1 << 62)...(1 << 62), using: &generator)
            let product = ExactInteger(a) * ExactInteger(b)
            let wide = Int128(a) * Int128(b)
            // Compare through a division that fits: product / b == a.
            if b > 0 {
                #expect(product.flooredQuotient(dividingBy: ExactInteger(b)) == a)
            }
            let sum = ExactInteger(a) + ExactInteger(b) - ExactInteger(b)
            #expect(ExactInteger.compare(sum, ExactInteger(a)) == 0)
            #expect(
                ExactInteger.compare(product, ExactInteger(0)) == (wide > 0 ? 1 : wide < 0 ? -1 : 0)
            )
        }
    }

    @Test func farApartExponentsStayExact() {
        // 2^-1000 + 2^1000 - 2^1000 is 2^-1000, not 0.
        let tiny = ExactRational(0x1p-1000)
        let huge = ExactRational(0x1p1000)
        #expect(ExactRational.compare(tiny + huge - huge, tiny) == 0)
    }

    /// Extreme but valid inputs go through the exact path and still give
    /// sane answers.
    @Test func extremeInputsUseTheExactPath() throws {
        let request = CropRequest(
            sourceSize: Size(width: 3, height: 3),
            viewport: Size(width: 0x1p-300, height: 0x1p-300),
            selection: Rect(x: 0, y: 0, width: 0x1p-301, height: 0x1p-300))
        #expect(!request.isDecidedByFastPath)
        #expect(try request.map().rect == PixelRect(x: 0, y: 0, width: 2, height: 3))
    }
}
