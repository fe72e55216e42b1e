import CropGeometry
import CropKitTestSupport
import Testing

/// A companion cut by the contract (DESIGN.md, "Companion images"): its
/// size, its sampling positions, when it is an exact copy, and what it
/// reads, against the formula computed here in another way.
@Suite struct CompanionGridTests {
    typealias Grid = CompanionGrid<ImagePixels>

    static func grid(_ pw: Int, _ ph: Int, _ mw: Int, _ mh: Int) -> Grid? {
        Grid(
            imageSize: PixelSize(width: pw, height: ph),
            companionSize: PixelSize(width: mw, height: mh))
    }

    /// Apple's gain map is a quarter of the photo each way: a crop on the
    /// 4-pixel grid is an exact copy, one off it samples between pixels.
    @Test func applesQuarterGainMap() throws {
        let grid = try #require(Self.grid(4032, 3024, 1008, 756))
        let on = grid.cut(PixelRect(x: 1000, y: 1000, width: 1200, height: 900))
        #expect(on.size == PixelSize(width: 300, height: 225))
        #expect(on.copyRect == PixelRect(x: 250, y: 250, width: 300, height: 225))
        #expect(on.readRect == on.copyRect)
        #expect(on.sampleX(0).isWhole && on.sampleX(0).floor == 250)
        let off = grid.cut(PixelRect(x: 1001, y: 1000, width: 1200, height: 900))
        #expect(off.copyRect == nil)
        #expect(off.size == PixelSize(width: 300, height: 225))
        // (1001 + ½·4)·¼ − ½ = 250.25
        #expect(off.sampleX(0).value == 250.25)
        #expect(off.readRect == PixelRect(x: 250, y: 250, width: 301, height: 225))
    }

    /// A resized crop's companion keeps its scale against the output, and
    /// each of its pixels samples where the photo's output pixel at the
    /// companion's size samples the photo (``StraightenedCrop``), scaled:
    /// the same numbers the JPEG writer's resampled gain map uses.
    @Test func aResizedCutSamplesAtTheOutputsPositions() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        for _ in 0..<300 {
            let (pw, ph) = (int(1...3000), int(1...3000))
            let (mw, mh) = (max(1, pw / int(1...5)), max(1, ph / int(1...5)))
            let grid = try #require(Self.grid(pw, ph, mw, mh))
            let (w, h) = (int(1...pw), int(1...ph))
            let rect = PixelRect<ImagePixels>(
                x: int(0...pw - w), y: int(0...ph - h), width: w, height: h)
            let out = PixelSize<ImagePixels>(width: int(1...2000), height: int(1...2000))
            let cut = grid.cut(rect, resizedTo: out)
            // max(1, round(W·sx)), round half up.
            func rounded(_ side: Int, _ m: Int, _ p: Int) -> Int {
                max(1, Int((Double(side) * Double(m) / Double(p) + 0.5).rounded(.down)))
            }
            #expect(cut.size.width == rounded(out.width, mw, pw))
            #expect(cut.size.height == rounded(out.height, mh, ph))
            let frame = try StraightenedFrame(
                imageSize: PixelSize(width: pw, height: ph), angle: 0)
            let photo = try StraightenedCrop(
                frame: frame,
                rect: PixelRect(x: rect.x, y: rect.y, width: w, height: h),
                outputSize: PixelSize(width: cut.size.width, height: cut.size.height),
                orientation: .up)
            for (i, j) in [(0, 0), (cut.size.width - 1, cut.size.height - 1)] {
                let q = photo.samplePosition(column: i, row: j)
                let sx = Double(mw) / Double(pw)
                let sy = Double(mh) / Double(ph)
                #expect(abs(cut.sampleX(i).value - (q.x * sx - 0.5)) < 1e-9)
                #expect(abs(cut.sampleY(j).value - (q.y * sy - 0.5)) < 1e-9)
            }
            // At the rect's own size it is the plain cut; resized to
            // another companion size it copies nothing.
            #expect(grid.cut(rect, resizedTo: PixelSize(width: w, height: h)) == grid.cut(rect))
            if cut.size != grid.cut(rect).size { #expect(cut.copyRect == nil) }
        }
    }

    @Test func theWholePhotoIsTheWholeCompanion() throws {
        for (pw, ph, mw, mh) in [(4032, 3024, 1008, 756), (4080, 3072, 1020, 768), (7, 5, 3, 2)] {
            let grid = try #require(Self.grid(pw, ph, mw, mh))
            let cut = grid.cut(PixelRect(x: 0, y: 0, width: pw, height: ph))
            #expect(cut.size == PixelSize(width: mw, height: mh))
            #expect(cut.copyRect == PixelRect(x: 0, y: 0, width: mw, height: mh))
        }
    }

    /// A 1x1 crop still has a 1x1 companion, sampled at the crop's centre.
    @Test func onePixelKeepsOneCompanionPixel() throws {
        let grid = try #require(Self.grid(4032, 3024, 1008, 756))
        let cut = grid.cut(PixelRect(x: 4031, y: 3023, width: 1, height: 1))
        #expect(cut.size == PixelSize(width: 1, height: 1))
        #expect(cut.copyRect == nil)
        // (4031.5)·¼ − ½ = 1007.375: the last pixel, clamped.
        #expect(cut.sampleX(0).value == 1007.375)
        #expect(cut.readRect == PixelRect(x: 1007, y: 755, width: 1, height: 1))
    }

    @Test func companionsThatLieHaveNoGrid() {
        #expect(Self.grid(4032, 3024, 0, 0) == nil)
        #expect(Self.grid(0, 3024, 10, 10) == nil)
        #expect(Self.grid(4032, 3024, Grid.maximumSide + 1, 10) == nil)
        #expect(Self.grid(4000, 3000, 1000, 750)?.aspectMismatch == 0)
        #expect((Self.grid(4000, 3000, 1000, 700)?.aspectMismatch ?? 0) > 0.01)
        #expect(Self.grid(4000, 3000, 1000, 700)?.isAligned == false)
    }

    /// A crop's own companions, rounded to whole pixels, are aligned to it:
    /// every cut of every 0.353-scale matte of a small crop is cut again.
    @Test func aCutCompanionIsAlignedToItsCrop() throws {
        let matte = try #require(Self.grid(4284, 5712, 1512, 2016))
        for (w, h) in [(41, 37), (7, 5), (1, 1), (3, 100), (1200, 900)] {
            let cut = matte.cut(PixelRect(x: 10, y: 10, width: w, height: h))
            let again = try #require(Self.grid(w, h, cut.size.width, cut.size.height))
            #expect(again.isAligned, "\(w)x\(h) with \(cut.size)")
        }
        // 14x13 beside 41x37 is 2.8 % off, within a pixel's rounding.
        #expect((Self.grid(41, 37, 14, 13)?.aspectMismatch ?? 0) > 0.01)
        #expect(Self.grid(41, 37, 14, 16)?.isAligned == false)
    }

    /// Random grids and crops: the size rounds half up, every position is
    /// the formula's value, a copy rect exists exactly when the scaled
    /// edges are whole and its pixels are the samples, and the read rect
    /// holds every pixel a sample weighs.
    @Test func randomCutsFollowTheFormula() throws {
        var generator = SeededGenerator(seed: 0xC0_3A_11)
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        var copies = 0
        for n in 0..<3000 {
            let (pw, ph) = (int(1...6000), int(1...6000))
            // Every other grid a whole divisor (as phones record them).
            let divisor = [1, 2, 4, 8][n % 4]
            let (mw, mh) =
                n % 2 == 0
                ? (max(1, pw / divisor), max(1, ph / divisor)) : (int(1...3000), int(1...3000))
            let grid = try #require(Self.grid(pw, ph, mw, mh))
            let w = int(1...pw)
            let h = int(1...ph)
            let rect = PixelRect<ImagePixels>(
                x: int(0...(pw - w)), y: int(0...(ph - h)), width: w, height: h)
            let cut = grid.cut(rect)
            // Round half up, by integers: 2·w·M ≥ (2k − 1)·P.
            func rounded(_ side: Int, _ m: Int, _ p: Int) -> Int {
                var k = side * m / p
                if 2 * (side * m - k * p) >= p { k += 1 }
                return max(1, k)
            }
            #expect(cut.size.width == rounded(w, mw, pw) && cut.size.height == rounded(h, mh, ph))
            let sx = Double(mw) / Double(pw)
            for i in [0, cut.size.width / 2, cut.size.width - 1] {
                let formula =
                    (Double(rect.x) + (Double(i) + 0.5) * Double(w) / Double(cut.size.width)) * sx
                    - 0.5
                #expect(
                    abs(cut.sampleX(i).value - formula) < 1e-9 * Double(mw), "\(grid) \(rect) \(i)")
            }
            let whole =
                rect.x * mw % pw == 0 && rect.y * mh % ph == 0 && w * mw % pw == 0
                && h * mh % ph == 0
            #expect((cut.copyRect != nil) == whole, "\(rect) on \(pw)x\(ph) / \(mw)x\(mh)")
            if let copy = cut.copyRect {
                copies += 1
                #expect(copy.width == cut.size.width && copy.height == cut.size.height)
                #expect(
                    (0..<cut.size.width).allSatisfy {
                        cut.sampleX($0).isWhole && cut.sampleX($0).floor == copy.x + $0
                    })
                #expect(cut.readRect == copy)
            }
            let read = cut.readRect
            for i in 0..<cut.size.width {
                let p = cut.sampleX(i)
                let low = min(max(p.floor, 0), mw - 1)
                let high = p.isWhole ? low : min(p.floor + 1, mw - 1)
                #expect(
                    low >= read.x && high < read.maxX,
                    "\(rect): column \(i) reads \(low)...\(high) outside \(read)")
            }
        }
        #expect(copies > 300)
    }

    /// The cut is the same seen flipped: a mirrored crop's companion is
    /// the mirrored companion's cut (so stored and displayed grids agree).
    @Test func mirroringTheCropMirrorsItsSamples() throws {
        let grid = try #require(Self.grid(4032, 3024, 1008, 756))
        let rect = PixelRect<ImagePixels>(x: 1001, y: 7, width: 333, height: 41)
        let mirrored = PixelRect<ImagePixels>(
            x: 4032 - rect.maxX, y: rect.y, width: rect.width, height: rect.height)
        let (a, b) = (grid.cut(rect), grid.cut(mirrored))
        #expect(a.size == b.size)
        for i in 0..<a.size.width {
            let (p, q) = (a.sampleX(i), b.sampleX(a.size.width - 1 - i))
            // p + q = M − 1, exactly.
            #expect(
                p.numerator * q.denominator + q.numerator * p.denominator == 1007 * p.denominator
                    * q.denominator)
        }
    }

    /// On a ramp the bilinear reference returns the position itself,
    /// clamped to the companion.
    @Test func theReferenceSampleIsBilinear() throws {
        let grid = try #require(Self.grid(400, 300, 100, 75))
        let cut = grid.cut(PixelRect(x: 1, y: 2, width: 399, height: 298))
        for i in [0, 5, cut.size.width - 1] {
            let value = cut.referenceSample(i, 0) { x, _ in Double(x) }
            let expected = min(max(cut.sampleX(i).value, 0), 99)
            #expect(abs(value - expected) < 1e-12)
        }
    }
}
