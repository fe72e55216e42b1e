import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// AVIF input and output: the HEIF container read by CropKit's own parser,
/// its AV1 images decoded by libheif (dav1d) a coded image at a time, the
/// transforms in file order, the crop as seen; AVIF crops of AVIFs by
/// copying tiles and encoding edge tiles again (aom). The generated
/// "coordinates" files hold their own displayed position in every pixel
/// (R = x & 255, G = y & 255, B = (x >> 8) << 4 | y >> 8, A = (x + y) & 255).
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: HEIFDecoder.libheifVersion != nil, "needs libheif (Debian: libheif1)"))
struct AVIFTests {
    static let files = TestData.files(under: "avif", extensions: ["avif"])

    /// The crop `rect` (as seen; whole by default) of `path` written as
    /// `format` in memory, and the report.
    static func crop(
        _ path: String, _ rect: PixelRect<ImagePixels>? = nil,
        format: OutputFormat = .png(PNGEncoder())
    ) throws -> (bytes: [UInt8], report: CropReport) {
        try cropInMemory(path, rect, format: format)
    }

    /// The decode of an image file in memory, by CropKit.
    static func decoded(_ bytes: [UInt8]) throws -> RasterImage { try decodedInMemory(bytes) }

    /// The largest difference of a sample of `image` (the crop at `origin`)
    /// from the coordinates pattern.
    static func patternError(_ image: RasterImage, origin: (Int, Int), alpha: Bool) -> Int {
        var worst = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (px, py) = (origin.0 + x, origin.1 + y)
                var expected = CoordinatesPattern.rgb(px, py)
                if alpha { expected.append((px + py) & 255) }
                for (channel, value) in expected.enumerated() {
                    worst = max(worst, abs(image.sample(x: x, y: y, channel: channel) - value))
                }
            }
        }
        return worst
    }

    @Test(
        "every lossless coordinates AVIF (grids, clap, irot, imir, alpha) is pixel-exact at its corners and centre"
    )
    func coordinatesFilesArePixelExact() throws {
        let coords = Self.files.filter { $0.contains("/coords_") && $0.hasSuffix("_lossless.avif") }
        #expect(coords.count >= 20)
        for file in coords {
            let source = try ImageSource.open(path: TestData.path(file))
            #expect(source.format == .avif, "\(file)")
            let seen = source.orientation.orientedSize(source.storedSize)
            let w = min(37, seen.width)
            let h = min(29, seen.height)
            var rects: [PixelRect<ImagePixels>] = [
                PixelRect(x: 0, y: 0, width: w, height: h),
                PixelRect(x: seen.width - w, y: seen.height - h, width: w, height: h),
                PixelRect(
                    x: (seen.width - w) / 2 | 1 & (seen.width - w), y: (seen.height - h) / 2,
                    width: w, height: h),
            ]
            if seen.width * seen.height <= 100_000 { rects.append(PixelRect(size: seen)) }
            for rect in rects {
                let image = try Self.decoded(try Self.crop(TestData.path(file), rect).bytes)
                #expect(image.width == rect.width && image.height == rect.height, "\(file)")
                let error = Self.patternError(
                    image, origin: (rect.x, rect.y), alpha: file.contains("rgba"))
                #expect(error == 0, "\(file) at \(rect): off by up to \(error)")
            }
        }
    }

    @Test(
        "irot and imir in file order make the orientation; an EXIF orientation inside is not applied"
    )
    func transformsMakeTheOrientation() throws {
        let cases: [(String, EXIFOrientation)] = [
            ("coords_irot90_97x61_lossless.avif", .left),
            ("coords_irot180_97x61_lossless.avif", .down),
            ("coords_irot270_97x61_lossless.avif", .right),
            ("coords_imir0_97x61_lossless.avif", .downMirrored),
            ("coords_imir1_97x61_lossless.avif", .upMirrored),
            ("coords_exif6_no_irot_97x61_lossless.avif", .up),
            ("coords_irot270_exif1_97x61_lossless.avif", .right),
        ]
        for (file, orientation) in cases {
            let source = try ImageSource.open(path: TestData.path("avif/generated/\(file)"))
            #expect(source.orientation == orientation, "\(file)")
        }
    }

    @Test(
        "real AVIFs crop at a corner as Pillow (libavif) decodes them: exact with nclx, close without"
    )
    func realFilesMatchPillow() throws {
        let real = Self.files.filter {
            !$0.contains("/generated/coords_") && !$0.contains(".crop.")
        }
        #expect(real.count >= 14)
        let sources = try real.map { try ImageSource.open(path: TestData.path($0)) }
        guard
            let decoded = try Pillow.decodeAll(
                zip(real, sources).map { file, source in
                    (
                        TestData.path(file), source.pixelFormat.colorType == .rgba ? "RGBA" : "RGB",
                        true
                    )
                })
        else { return }
        for ((file, source), whole) in zip(zip(real, sources), decoded) {
            let seen = source.orientation.orientedSize(source.storedSize)
            #expect(whole.width == seen.width && whole.height == seen.height, "\(file)")
            let rect = PixelRect<ImagePixels>(
                x: seen.width - 61, y: seen.height - 41, width: 61, height: 41)
            var image = try Self.decoded(try Self.crop(TestData.path(file), rect).bytes)
            if image.bitDepth == 16 || image.colorType == .gray {
                image = try Self.decoded(
                    try Self.crop(TestData.path(file), rect, format: .webp(WebPEncoder())).bytes)
            }
            let channels = image.colorType == .rgba ? 4 : 3
            var worst = 0
            for y in 0..<rect.height {
                for x in 0..<rect.width * channels {
                    let theirs = Int(
                        whole.samples[((rect.y + y) * whole.width + rect.x) * channels + x])
                    worst = max(
                        worst, abs(theirs - Int(image.samples[y * rect.width * channels + x])))
                }
            }
            // Link-U's files have no colour description (`colr`), and one
            // codes its alpha in limited range: the decoders' defaults for
            // those and their chroma upsampling differ (libheif 1.15's
            // against libavif 1.4's) by up to 16 levels.
            let limit = file.contains("/link-u") ? 16 : 1
            #expect(worst <= limit, "\(file): off Pillow's decode by up to \(worst)")
        }
    }

    @Test(
        "AVIF from a grid AVIF: tiles on the grid copied byte for byte, an off-grid crop's edge tiles encoded again, nothing hidden"
    )
    func avifOutputCopiesTilesAndHidesNothing() throws {
        let path = TestData.path("avif/generated/coords_grid2x2_1024x784_lossless.avif")
        let onGrid = try Self.crop(
            path, PixelRect(x: 512, y: 392, width: 512, height: 392), format: .avif(AVIFEncoder()))
        #expect(
            onGrid.report.details(as: HEIFWriteReport.self)?.copiedTiles == 1
                && onGrid.report.details(as: HEIFWriteReport.self)?.reencodedTiles == 0)
        let copied = try Self.decoded(onGrid.bytes)
        #expect(Self.patternError(copied, origin: (512, 392), alpha: false) == 0)
        // Holding tile 0 whole: it is copied, the three it cuts encoded again.
        let offGrid = try Self.crop(
            path, PixelRect(x: 0, y: 0, width: 700, height: 500), format: .avif(AVIFEncoder()))
        #expect(offGrid.report.details(as: HEIFWriteReport.self)?.copiedTiles == 1)
        #expect(offGrid.report.format == "avif")
        #expect((offGrid.report.details(as: HEIFWriteReport.self)?.reencodedTiles ?? 0) > 0)
        let output = try ImageSource(ImageInput(bytes: offGrid.bytes, name: "out.avif"))
        #expect(output.format == .avif)
        #expect(output.storedSize == PixelSize(width: 700, height: 500))
        let image = try output.decode().image
        #expect(Self.patternError(image, origin: (0, 0), alpha: false) <= 8)
        #expect(try LeakCheck.findings(in: output).isEmpty)
        // Pillow (libavif 1.4, which refuses a grid whose tiles' av1C
        // differ) reads it too; it shows a grid's coded area, ignoring the
        // clean aperture: the rect's edge repeated beyond it.
        if let pillow = try Pillow.rgb(offGrid.bytes) {
            #expect(pillow.width >= 700 && pillow.height >= 500)
        }
        // A copy of tiles (--lossless) needs an AVIF source; any other
        // crop of anything is encoded from pixels at its exact size.
        let png = try ImageSource.open(
            path: TestData.path("pngsuite/generated/coords_rgba8_251x97.png"))
        #expect(throws: CropPlanError.self) {
            try CropJob(
                region: .pixels(PixelRect(x: 0, y: 0, width: 10, height: 10)),
                format: .avif(AVIFEncoder(method: .lossless))
            ).plan(for: png)
        }
        let fromPNG = try Self.crop(
            TestData.path("pngsuite/generated/coords_rgba8_251x97.png"),
            PixelRect(x: 3, y: 5, width: 101, height: 51), format: .avif(AVIFEncoder()))
        #expect(
            fromPNG.report.details(as: HEIFWriteReport.self)?.encodedWholeAt
                == AVIFEncoder.defaultQuality)
        let written = try ImageSource(ImageInput(bytes: fromPNG.bytes, name: "png.avif"))
        #expect(written.storedSize == PixelSize(width: 101, height: 51))
        #expect(written.pixelFormat.colorType == .rgba)
        #expect(try LeakCheck.findings(in: written).isEmpty)
        if let pillow = try Pillow.rgb(fromPNG.bytes) {
            #expect(pillow.width == 101 && pillow.height == 51)
        }
    }

    /// Each ends in a decode or a clean error (the 2 s bound is
    /// scripts/gauntlet's, on a quiet machine: these files are in its
    /// corpus, and a test that times itself fails on a busy one).
    @Test("hostile AVIFs end in a decode or a clean error")
    func corruptFilesAreRefusedCleanly() throws {
        let corrupt = TestData.files(under: "corrupt/avif", extensions: ["avif"])
        #expect(corrupt.count >= 37)
        for file in corrupt {
            do throws(ImagingError) {
                _ = try ImageSource.open(path: TestData.path(file)).decode()
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
