import CImagingShims
import CropImaging
import CropKitTestSupport
import Testing

/// Making a band's DEFLATE stream continuable needs its final block's end to
/// the bit. For a one-block stream the end is told from the block's header
/// (its end-of-block code must sit just before the zero padding); that fast
/// path must agree with zlib's inflate(Z_BLOCK) walk on every stream it takes.
@Suite(.announcesSkips) struct ContinuableStreamTests {
    @Test(.enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"))
    func headerReadingAgreesWithZlibsWalk() throws {
        var state: UInt32 = 2024
        func next() -> UInt32 {
            state = state &* 1_103_515_245 &+ 12345
            return state >> 16
        }
        var fast = 0
        var cases = 0
        // Noise of every few sizes up to one piece (64 KiB), noise with a
        // narrower spread (other code lengths), and runs (matches).
        for size in stride(from: 1, through: 65535, by: 1031) + [65535] {
            for kind in 0..<3 {
                let bytes = (0..<size).map { i -> UInt8 in
                    switch kind {
                    case 0: UInt8(truncatingIfNeeded: next())
                    case 1: UInt8(truncatingIfNeeded: 120 + Int(next() % 17))
                    default: UInt8(truncatingIfNeeded: (i / 50) &* 7 &+ Int(next() % 3))
                    }
                }
                var usedFastPath: Int32 = 0
                let agreed = bytes.withUnsafeBufferPointer {
                    ck_deflate_continuable_selftest($0.baseAddress, $0.count, &usedFastPath)
                }
                #expect(agreed == 1, "size \(size), kind \(kind)")
                fast += Int(usedFastPath)
                cases += 1
            }
        }
        // The fast path must actually be taken, or this checks nothing.
        print("headerReadingAgreesWithZlibsWalk: fast path on \(fast) of \(cases) streams")
        #expect(fast > cases / 2, "fast path on \(fast) of \(cases)")
    }
}
