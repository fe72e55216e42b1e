import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// WebP input and output: the RIFF container CropKit reads itself, the
/// bitstream libwebp decodes (only the rect's rows), the EXIF orientation
/// applied, the crop as seen. The generated "coordinates" files hold their
/// own displayed position in every pixel (R = x & 255, G = y & 255,
/// B = (x >> 8) << 4 | y >> 8, A = (x + y) & 255), so a crop is checked
/// pixel by pixel; the others against Pillow's decode.
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: RuntimeLibrary.libwebp.isAvailable, "needs libwebp.so.7 (Debian: libwebp7)"))
struct WebPTests {
    static let files = TestData.files(under: "webp", extensions: ["webp"])

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

    /// The pixels of `image` (the crop at `origin`) that differ from the
    /// coordinates pattern.
    static func wrongPixels(_ image: RasterImage, origin: (Int, Int), alpha: Bool) -> Int {
        var wrong = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (px, py) = (origin.0 + x, origin.1 + y)
                var expected = CoordinatesPattern.rgb(px, py)
                if alpha { expected.append((px + py) & 255) }
                let got = (0..<expected.count).map { image.sample(x: x, y: y, channel: $0) }
                if got != expected { wrong += 1 }
            }
        }
        return wrong
    }

    /// The corners, the centre and a rect at odd coordinates of an image of
    /// `size`, each at most 37x29.
    static func rects(_ size: PixelSize<ImagePixels>) -> [PixelRect<ImagePixels>] {
        let w = min(37, size.width)
        let h = min(29, size.height)
        let xs = [0, size.width - w, (size.width - w) / 2, min(1, size.width - w)]
        let ys = [0, size.height - h, (size.height - h) / 2, min(1, size.height - h)]
        return [
            PixelRect(size: size),
            PixelRect(x: xs[0], y: ys[0], width: w, height: h),
            PixelRect(x: xs[1], y: ys[0], width: w, height: h),
            PixelRect(x: xs[0], y: ys[1], width: w, height: h),
            PixelRect(x: xs[1], y: ys[1], width: w, height: h),
            PixelRect(x: xs[2], y: ys[2], width: w, height: h),
            PixelRect(x: xs[3], y: ys[3], width: w, height: h),
        ]
    }

    @Test(
        "every lossless coordinates file, in every orientation, is pixel-exact at its corners and centre"
    )
    func coordinatesFilesArePixelExact() throws {
        let coords = Self.files.filter {
            $0.contains("/coords_") && $0.hasSuffix("_lossless.webp") && !$0.contains("anim")
        }
        #expect(coords.count >= 20)
        for file in coords {
            let source = try ImageSource.open(path: TestData.path(file))
            let seen = source.orientation.orientedSize(source.storedSize)
            // Whole where that is quick to check in a debug build.
            let rects = Self.rects(seen)
            for rect in rects.dropFirst(seen.width * seen.height > 100_000 ? 1 : 0) {
                let image = try Self.decoded(try Self.crop(TestData.path(file), rect).bytes)
                #expect(image.width == rect.width && image.height == rect.height, "\(file)")
                let wrong = Self.wrongPixels(
                    image, origin: (rect.x, rect.y), alpha: file.contains("rgba"))
                #expect(wrong == 0, "\(file) at \(rect): \(wrong) wrong pixels")
            }
        }
    }

    @Test("the EXIF orientation is the WebP's; an XMP orientation without EXIF is not applied")
    func orientationComesFromEXIF() throws {
        for n in 1...8 {
            let source = try ImageSource.open(
                path: TestData.path("webp/generated/coords_exif\(n)_97x61_lossless.webp"))
            #expect(source.orientation.rawValue == n)
            let seen = source.orientation.orientedSize(source.storedSize)
            #expect(seen.width == 97 && seen.height == 61)
        }
        let prefixed = try ImageSource.open(
            path: TestData.path("webp/generated/coords_exif6_prefixed_97x61_lossless.webp"))
        #expect(prefixed.orientation == .right)
        let xmpOnly = try ImageSource.open(
            path: TestData.path("webp/generated/coords_xmp_orient6_no_exif_97x61_lossless.webp"))
        #expect(xmpOnly.orientation == .up)
    }

    @Test("every WebP crops, whole, at a corner and at odd coordinates, as Pillow decodes it")
    func everyFileMatchesPillow() throws {
        let stills = Self.files.filter { !$0.contains("anim") }
        #expect(stills.count >= 35)
        let sources = try stills.map { try ImageSource.open(path: TestData.path($0)) }
        // Pillow decodes every file in one process; its rects are cut here.
        // Pillow alone turns a WebP by an XMP orientation, so that file is
        // compared as stored.
        guard
            let decoded = try Pillow.decodeAll(
                zip(stills, sources).map { file, source in
                    (
                        TestData.path(file), source.pixelFormat.colorType == .rgba ? "RGBA" : "RGB",
                        !file.contains("xmp_orient6_no_exif")
                    )
                })
        else { return }
        for ((file, source), whole) in zip(zip(stills, sources), decoded) {
            let path = TestData.path(file)
            let seen = source.orientation.orientedSize(source.storedSize)
            #expect(whole.width == seen.width && whole.height == seen.height, "\(file)")
            let channels = source.pixelFormat.colorType == .rgba ? 4 : 3
            // The whole image (but the photo's), its bottom-right corner and
            // a rect at odd coordinates: the other corners are the
            // coordinates test's.
            let rects = Self.rects(seen)
            for rect in (file.contains("photo_") ? [] : [rects[0]]) + [rects[4], rects[6]] {
                let image = try Self.decoded(try Self.crop(path, rect).bytes)
                var expected: [UInt8] = []
                for y in rect.y..<rect.y + rect.height {
                    let start = (y * whole.width + rect.x) * channels
                    expected += whole.samples[start..<start + rect.width * channels]
                }
                // Compared whole (fast in a debug build); counted only when they differ.
                let same = expected == image.samples
                #expect(
                    same,
                    "\(file) at \(rect): \(same ? 0 : zip(expected, image.samples).filter { $0 != $1 }.count) samples differ from Pillow's"
                )
            }
        }
    }

    @Test(
        "a lossless WebP crop of a lossless source keeps every sample, the colour under transparent pixels too"
    )
    func losslessOutputKeepsEverySample() throws {
        for file in [
            "webp/generated/coords_rgba_300x200_lossless.webp",
            "webp/generated/coords_exif5_97x61_lossless.webp",
            "pngsuite/generated/coords_rgba8_251x97.png",
        ] {
            let rect = PixelRect<ImagePixels>(x: 3, y: 5, width: 41, height: 37)
            let (bytes, report) = try Self.crop(
                TestData.path(file), rect, format: .webp(WebPEncoder()))
            #expect(report.details(as: WebPWriteReport.self)?.coding == "VP8L", "\(file)")
            let image = try Self.decoded(bytes)
            let output = try ImageSource(ImageInput(bytes: bytes, name: "out.webp"))
            #expect(output.orientation == .up)
            // The same samples as the lossless PNG crop of the rect.
            let png = try Self.decoded(try Self.crop(TestData.path(file), rect).bytes)
            #expect(image.samples == png.samples, "\(file)")
            if file.hasSuffix(".webp") {
                #expect(
                    Self.wrongPixels(image, origin: (3, 5), alpha: file.contains("rgba")) == 0,
                    "\(file)")
            }
            // Pillow (its own libwebp) reads the same samples.
            if let pillow = try Pillow.rgb(
                bytes, mode: file.contains("rgba") ? "RGBA" : "RGB")
            {
                #expect(pillow.samples == image.samples, "\(file): Pillow reads other samples")
            }
            #expect(try LeakCheck.findings(in: output).isEmpty)
        }
        // --quality asks for lossy VP8 whatever the source.
        let lossy = try Self.crop(
            TestData.path("webp/generated/coords_rgba_300x200_lossless.webp"),
            format: .webp(WebPEncoder(quality: 70)))
        #expect(
            lossy.report.details(as: WebPWriteReport.self)?.coding == "VP8"
                && lossy.report.details(as: WebPWriteReport.self)?.quality == 70)
    }

    @Test("a lossy WebP is written at the quality its quantizers say it was coded at")
    func lossyOutputKeepsTheSourceQuality() throws {
        let path = TestData.path("webp/generated/photo_pug_4032x3024_q80.webp")
        let info = try #require(try ImageSource.open(path: path).header as? WebPFileInfo)
        let estimate = try #require(info.estimatedQuality)
        #expect(abs(estimate - 80) <= 3, "estimated \(estimate) for quality 80")
        let rect = PixelRect<ImagePixels>(x: 1009, y: 759, width: 301, height: 203)
        let (bytes, report) = try Self.crop(path, rect, format: .webp(WebPEncoder()))
        #expect(
            report.details(as: WebPWriteReport.self)?.coding == "VP8"
                && report.details(as: WebPWriteReport.self)?.quality == estimate)
        #expect(report.details(as: WebPWriteReport.self)?.reason.contains("estimated") == true)
        // Close to the source's own decode of the rect.
        let source = try Self.decoded(try Self.crop(path, rect).bytes)
        let output = try Self.decoded(bytes)
        var squared = 0.0
        for (a, b) in zip(source.samples, output.samples) {
            squared += Double((Int(a) - Int(b)) * (Int(a) - Int(b)))
        }
        let psnr = 10 * log10(255 * 255 / (squared / Double(source.samples.count)))
        #expect(psnr > 35, "PSNR \(psnr) dB")
        // The metadata went with it: EXIF with orientation 1 and the crop's
        // size, the Display P3 profile, no thumbnail.
        let written = try ImageSource(ImageInput(bytes: bytes, name: "out.webp"))
        let header = try #require(written.header as? WebPFileInfo)
        #expect(header.chunks.map(\.type) == ["VP8X", "ICCP", "VP8 ", "EXIF"])
        #expect(header.iccProfile == info.iccProfile)
        #expect(try written.metadata().exifTags?.orientation == 1)
        #expect(try LeakCheck.findings(in: written).isEmpty)
    }

    @Test(
        "animated, truncated, oversized and malformed WebPs are refused, naming the problem"
    )
    func corruptFilesAreRefused() throws {
        let corrupt = TestData.files(under: "corrupt/webp", extensions: ["webp"])
        #expect(corrupt.count == 29)
        // The 2 s bound is scripts/gauntlet's, on a quiet machine (these
        // files are in its corpus): a test that times itself is flaky.
        for file in corrupt {
            var outcome = "decoded"
            do throws(ImagingError) {
                _ = try ImageSource.open(path: TestData.path(file)).decode()
            } catch {
                outcome = error.description
            }
            let name = (file as NSString).lastPathComponent
            if name.hasPrefix("27_") || name.hasPrefix("28_") || name.hasPrefix("29_") {
                // Bad metadata, a good image: decoded, with a warning.
                #expect(outcome == "decoded", "\(file): \(outcome)")
            } else if name.contains("anim") || name.hasPrefix("21_") {
                #expect(outcome.contains("animated WebP"), "\(file): \(outcome)")
            } else if name.contains("16383x16383") {
                #expect(outcome.contains("over the limit"), "\(file): \(outcome)")
            } else {
                #expect(outcome != "decoded", "\(file) was decoded")
            }
        }
    }

    @Test("libwebp decodes only what the crop needs and gives the same samples as a whole decode")
    func regionDecodeMatchesWholeDecode() throws {
        for file in [
            "webp/generated/coords_rgba_lossy_q90_97x61.webp",
            "webp/generated/coords_lossy_q90_300x200.webp",
            "webp/libwebp-test-data/lossy_extreme_probabilities.webp",
            "webp/libwebp-test-data/lossy_alpha1.webp",
            "webp/libwebp-test-data/alpha_filter_1_method_1.webp",
        ] {
            let source = try ImageSource.open(path: TestData.path(file))
            let whole = try source.decode().image
            for rect in Self.rects(PixelSize(width: whole.width, height: whole.height)).dropFirst()
            {
                let part = try source.decode(
                    PixelRect<StoredPixels>(
                        x: rect.x, y: rect.y, width: rect.width, height: rect.height)
                ).image
                let expected = whole.cropped(
                    to: PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height))
                #expect(part.samples == expected.samples, "\(file) at \(rect)")
            }
        }
    }
}
