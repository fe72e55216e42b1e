import CropGeometry
import CropKitTestSupport
import CropTestKit
import Foundation
import Testing

/// CropKit's own cosine and sine, which make a turned crop the same on every
/// platform and in the browser playground.
@Suite(.announcesSkips) struct TrigonometryTests {
    /// Angles as records give them: tenths and hundredths of a degree, and
    /// arbitrary doubles, reduced to the ±45° the frame turns by.
    static let radians: [Double] = {
        var random = SeededRandom(seed: 30)
        return (0..<100_000).map { index in
            var degrees = Double(random.next() >> 11) / 0x1p53 * 90 - 45
            if index % 3 == 0 { degrees = (degrees * 100).rounded() / 100 }
            if index % 3 == 1 { degrees = (degrees * 10).rounded() / 10 }
            return degrees * (Double.pi / 180)
        }
    }()

    @Test func withinOneUnitInTheLastPlaceOfTheSystemsOwn() {
        for x in Self.radians {
            #expect(abs(Trigonometry.sine(x) - sin(x)) <= sin(x).ulp, "sin \(x)")
            #expect(abs(Trigonometry.cosine(x) - cos(x)) <= cos(x).ulp, "cos \(x)")
        }
    }

    /// Angles where glibc's `sin` and `cos` are a unit in the last place
    /// off (about 1 angle in 400 of these), with the correctly rounded
    /// value computed to 200 bits by mpmath: CropKit's is that value.
    static let sines: [(Double, Double)] = [
        (0x1.87fc65949d2cdp-3, 0x1.8598d430b5123p-3), (0x1.db11afc7b4dafp-2, 0x1.ca35a8dedcda1p-2),
        (0x1.d53f7b0b2803cp-3, 0x1.d12727d47416fp-3), (0x1.6f0fb4241ba39p-3, 0x1.6d196c1380a0bp-3),
        (-0x1.57cf122a9cfdep-3, -0x1.56323e76a74fbp-3),
        (0x1.85edc993d2bcbp-3, 0x1.8393c9222099fp-3),
        (0x1.6dd7924f9084dp-1, 0x1.4f7f15cee342fp-1), (0x1.9d04f3872a348p-2, 0x1.91e95cfbfa11fp-2),
        (-0x1.24aa793dd04dap-2, -0x1.20b29ea05e861p-2),
        (-0x1.09ffcf04b9125p-3, -0x1.0940837c33707p-3),
        (0x1.5b14c1265d675p-2, 0x1.547932a13cbbbp-2), (0x1.574326b8179e3p-2, 0x1.50de9c5da54b3p-2),
    ]
    static let cosines: [(Double, Double)] = [
        (-0x1.22391f60681bcp-1, 0x1.afec750611517p-1),
        (-0x1.2d30bc31b326bp-2, 0x1.ea0307c3107e3p-1),
        (0x1.0ba1b83214863p-1, 0x1.bba158e9337bdp-1), (-0x1.571ab34a1a62ap-1, 0x1.9146d9d6cd443p-1),
        (-0x1.7f55af61f7109p-1, 0x1.7713ef8807fe5p-1),
        (-0x1.bae8015962796p-2, 0x1.d0d993aed580bp-1),
        (0x1.268bedeafe2a3p-1, 0x1.ad9632fd637e7p-1), (0x1.96712d61fdff2p-3, 0x1.f5f34934e6bcbp-1),
        (0x1.59e9449feabe9p-1, 0x1.8f8704ab55f3bp-1), (-0x1.4f4481870b894p-1, 0x1.9618c910c82ebp-1),
        (-0x1.647e7ce0eedcfp-2, 0x1.e148e61f47985p-1),
        (-0x1.6236796529ecap-1, 0x1.8a4896af25625p-1),
    ]

    @Test func correctlyRoundedWhereTheSystemLibraryIsNot() {
        for (x, value) in Self.sines { #expect(Trigonometry.sine(x) == value, "sin \(x)") }
        for (x, value) in Self.cosines { #expect(Trigonometry.cosine(x) == value, "cos \(x)") }
    }

    @Test func quarterTurnsAreExactAndMirrorsAreExactNegations() {
        for (degrees, expected) in [
            (0.0, (1.0, 0.0)), (90, (0, 1)), (180, (-1, 0)), (-90, (0, -1)),
        ] {
            let turned = StraightenedFrame.cosineAndSine(degrees: degrees)
            #expect(turned.cosine == expected.0 && turned.sine == expected.1, "\(degrees)°")
        }
        for x in Self.radians.prefix(1000) {
            #expect(Trigonometry.sine(-x) == -Trigonometry.sine(x))
            #expect(Trigonometry.cosine(-x) == Trigonometry.cosine(x))
        }
    }
}
