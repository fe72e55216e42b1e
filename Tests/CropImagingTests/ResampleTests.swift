import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Turned and resized crops through the real pipeline (PNG in, CropJob,
/// export, PNG out), read back against the positions the contract says
/// each output pixel sampled.
@Suite(.announcesSkips) struct ResampleTests {
    /// A 16-bit RGB image whose pixel `(x, y)` holds `x·scale`, `y·scale`
    /// (the scale as large as 16 bits allow), as a PNG in memory.
    static func scaledCoordinates(width: Int, height: Int, bitDepth: Int = 16) throws -> (
        ImageSource, Int
    ) {
        let scale = ((1 << bitDepth) - 1) / max(width - 1, height - 1, 1)
        var samples = [UInt8]()
        samples.reserveCapacity(width * height * 6)
        for y in 0..<height {
            for x in 0..<width {
                for value in [x * scale, y * scale, 0] {
                    samples +=
                        bitDepth == 16 ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value)]
                }
            }
        }
        let image = RasterImage(
            width: width, height: height, colorType: .rgb, bitDepth: bitDepth, samples: samples)
        let bytes = try PNGEncoder().encode(image)
        return (try ImageSource(ImageInput(bytes: bytes)), scale)
    }

    /// An 800x640 RGB picture with detail in every channel, for crops
    /// compared bit for bit.
    static let texture: RasterImage = {
        var samples = [UInt8]()
        for y in 0..<640 {
            for x in 0..<800 {
                samples += [
                    UInt8((x * 3 + y) & 0xFF), UInt8((y * 5) & 0xFF), UInt8((x ^ y) & 0xFF),
                ]
            }
        }
        return RasterImage(
            width: 800, height: 640, colorType: .rgb, bitDepth: 8, samples: samples)
    }()

    static func export(_ job: CropJob, _ source: ImageSource) throws -> (CropPlan, RasterImage) {
        let plan = try job.plan(for: source)
        let sink = MemorySink()
        _ = try plan.export(to: sink)
        return (plan, try ImageSource(ImageInput(bytes: sink.bytes)).decode().image)
    }

    /// Bilinear output pixels read back the position `q` they sampled (to
    /// the fixture's quantisation: half a unit of the scale, plus the
    /// Float32 sums' rounding), and fill pixels are exactly where `q`
    /// leaves the image.
    @Test(arguments: [16, 8])
    func bilinearPixelsReadBackTheirSamplePositions(bitDepth: Int) throws {
        let (width, height) = (181, 127)
        let (source, scale) = try Self.scaledCoordinates(
            width: width, height: height, bitDepth: bitDepth)
        let opaque = (1 << bitDepth) - 1
        var seed = UInt64(0x5EED)
        func next(_ range: ClosedRange<Int>) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((seed >> 33) % UInt64(range.count))
        }
        var interior = 0
        var filled = 0
        let tolerance = 0.5 / Double(scale) + 0.01
        for trial in 0..<24 {
            let angle = [3.5, -17.25, 90, 180, 1e-9, 45, -120.5, 0][trial % 8]
            let x = next(-40...150)
            let y = next(-40...100)
            let rect = PixelRect<ImagePixels>(
                x: x, y: y, width: next(5...90), height: next(5...90))
            var job = CropJob(region: .pixels(rect))
            let sizes: [OutputSizeRule?] = [
                nil, .exact(PixelSize(width: 37, height: 51)), .width(140),
            ]
            job.resampling = CropJob.Resampling(
                angle: angle, size: sizes[trial % 3], filter: .bilinear)
            if angle == 0 {
                job.region = .pixels(PixelRect(x: 10, y: 20, width: 60, height: 50))
            }
            let plan: CropPlan
            let output: RasterImage
            do {
                (plan, output) = try Self.export(job, source)
            } catch let error as CropPlanError {
                // A rect that shows none of the turned image.
                #expect(error == .straightenRejected(.noImagePixels), "\(error)")
                continue
            }
            guard let crop = plan.resampling?.crop else {
                // No angle and no size: the lossless crop.
                #expect(angle == 0 && sizes[trial % 3] == nil)
                continue
            }
            #expect(
                output.width == crop.outputSize.width && output.height == crop.outputSize.height)
            let hasAlpha = output.colorType == .rgba
            for row in 0..<output.height {
                for column in 0..<output.width {
                    let q = crop.samplePosition(column: column, row: row)
                    let inside =
                        q.x >= 0 && q.y >= 0 && q.x <= Double(width) && q.y <= Double(height)
                    let alpha = hasAlpha ? output.sample(x: column, y: row, channel: 3) : opaque
                    if !inside {
                        #expect(alpha == 0, "fill at \(column),\(row): q \(q)")
                        filled += 1
                        continue
                    }
                    #expect(alpha == opaque)
                    // Within half a pixel of the edge the edge is repeated.
                    guard q.x >= 0.5, q.y >= 0.5, q.x <= Double(width) - 0.5,
                        q.y <= Double(height) - 0.5
                    else { continue }
                    let readX = Double(output.sample(x: column, y: row, channel: 0)) / Double(scale)
                    let readY = Double(output.sample(x: column, y: row, channel: 1)) / Double(scale)
                    #expect(
                        abs(readX - (q.x - 0.5)) <= tolerance
                            && abs(readY - (q.y - 0.5)) <= tolerance,
                        "\(angle)° \(column),\(row): read \(readX),\(readY), q \(q)")
                    interior += 1
                }
            }
        }
        #expect(interior > 20000 && filled > 1000)
    }

    /// The largest rect inside a turned photo has no transparent border;
    /// the same rect one pixel larger on each side has.
    @Test func theLargestRectInsideHasNoFill() throws {
        let (source, _) = try Self.scaledCoordinates(width: 160, height: 120)
        var job = CropJob(region: .largestInside(aspect: nil))
        job.resampling = CropJob.Resampling(angle: 7)
        let (plan, output) = try Self.export(job, source)
        #expect(output.colorType == .rgb)  // no alpha: no fill can occur
        let rect = try #require(plan.resampling?.crop.rect)
        var grown = CropJob(
            region: .pixels(
                PixelRect(
                    x: rect.x - 1, y: rect.y - 1, width: rect.width + 2, height: rect.height + 2)))
        grown.resampling = CropJob.Resampling(angle: 7)
        let (_, bigger) = try Self.export(grown, source)
        #expect(bigger.colorType == .rgba)
        #expect(bigger.sample(x: 0, y: 0, channel: 3) == 0)
    }

    /// A bottom-right crop of the corners fixture, turned a little, holds
    /// no top-left marker; an unturned size equal to the rect stays lossless.
    @Test func aTurnedBottomRightCropHoldsNoTopLeftMarker() throws {
        let fixture = Fixture.corners(width: 400, height: 300)
        let source = try ImageSource(ImageInput(bytes: PNGEncoder().encode(fixture)))
        var job = CropJob(region: .pixels(PixelRect(x: 200, y: 150, width: 200, height: 150)))
        job.resampling = CropJob.Resampling(angle: 2, fill: .rgb(255, 255, 255))
        let (_, output) = try Self.export(job, source)
        for y in 0..<output.height {
            for x in 0..<output.width {
                let pixel = (0..<3).map { output.sample(x: x, y: y, channel: $0) }
                #expect(pixel != [255, 0, 0], "top-left marker at \(x),\(y)")
            }
        }
        job.resampling = CropJob.Resampling(size: .exact(PixelSize(width: 200, height: 150)))
        let (plan, same) = try Self.export(job, source)
        #expect(plan.resampling == nil)
        #expect(same == fixture.cropped(to: PixelRect(x: 200, y: 150, width: 200, height: 150)))
    }

    /// Lanczos-3 keeps a flat colour flat at any reduction (its weights are
    /// normalized) and halves a 2×2 checkerboard to its mean.
    @Test func lanczosIsNormalizedAndAveragesWhenReducing() throws {
        var samples = [UInt8]()
        for y in 0..<64 {
            for x in 0..<64 {
                let value: UInt8 = (x / 2 + y / 2) % 2 == 0 ? 200 : 40
                samples += [value, value, value]
            }
        }
        let board = RasterImage(
            width: 64, height: 64, colorType: .rgb, bitDepth: 8, samples: samples)
        let source = try ImageSource(ImageInput(bytes: PNGEncoder().encode(board)))
        var job = CropJob(region: .pixels(PixelRect(x: 0, y: 0, width: 64, height: 64)))
        job.resampling = CropJob.Resampling(size: .exact(PixelSize(width: 8, height: 8)))
        let (plan, output) = try Self.export(job, source)
        #expect(plan.resampling?.resampler.filter == .lanczos3)
        for y in 1..<7 {
            for x in 1..<7 {
                #expect(abs(output.sample(x: x, y: y, channel: 0) - 120) <= 3)
            }
        }
    }

    /// JPEG shrink-on-load: decoded at 1/2, 1/4 or 1/8 through the DCT
    /// scaling, the sample positions still follow the contract. On a ramp
    /// whose pixel holds its own x and y, every interior output pixel reads
    /// back `q − ½` (to the ramp's JPEG error), in every orientation,
    /// including mirrored ones whose shrunk grid starts with padding; and
    /// the shrunk output is near the full decode's.
    @Test(arguments: [EXIFOrientation.up, .upMirrored, .right, .rightMirrored, .down])
    func shrinkOnLoadKeepsTheSamplePositions(orientation: EXIFOrientation) throws {
        let (width, height) = (250, 190)  // not multiples of 8
        var samples = [UInt8]()
        for y in 0..<height {
            for x in 0..<width { samples += [UInt8(x), UInt8(y), 128] }
        }
        let ramp = RasterImage(
            width: width, height: height, colorType: .rgb, bitDepth: 8, samples: samples)
        let bytes = try JPEGEncoder.encoded(
            ramp, quality: 100, horizontal: [1, 1, 1], vertical: [1, 1, 1])
        let source = try ImageSource(ImageInput(bytes: bytes))
        let seen = orientation.orientedSize(PixelSize(width: width, height: height))
        for (angle, out) in [(0.0, 60), (2.5, 31), (-30, 40)] {
            var job = CropJob(
                region: .pixels(PixelRect(x: 0, y: 0, width: seen.width, height: seen.height)),
                orientation: orientation)
            job.resampling = CropJob.Resampling(
                angle: angle, size: .width(out), fill: .rgb(0, 0, 0))
            let (plan, shrunk) = try Self.export(job, source)
            let resample = try #require(plan.resampling)
            let least = min(resample.crop.reduction.x, resample.crop.reduction.y)
            #expect(
                resample.shrink >= 2 && Double(resample.shrink) <= least
                    && Double(resample.shrink * 2) > least || resample.shrink == 8,
                "\(angle)° to \(out): shrink \(resample.shrink) for a reduction of \(least)")
            job.resampling.shrinksOnLoad = false
            let (_, full) = try Self.export(job, source)
            var compared = 0
            var difference = 0
            var signed = (x: 0.0, y: 0.0)
            for row in 0..<shrunk.height {
                for column in 0..<shrunk.width {
                    let q = resample.crop.samplePosition(column: column, row: row)
                    // Well inside, where no footprint meets the image's edge.
                    let margin = 3 * max(resample.crop.reduction.x, resample.crop.reduction.y)
                    guard q.x > margin, q.y > margin, q.x < Double(seen.width) - margin,
                        q.y < Double(seen.height) - margin
                    else { continue }
                    // The ramp holds stored x and y: see them as the image does.
                    let stored = orientation.storedRect(
                        PixelRect(x: Int(q.x), y: Int(q.y), width: 1, height: 1),
                        storedSize: PixelSize(width: width, height: height))
                    let turned = orientation.rawValue >= 5
                    let (readX, readY) = (
                        Double(shrunk.sample(x: column, y: row, channel: 0)),
                        Double(shrunk.sample(x: column, y: row, channel: 1))
                    )
                    // The stored coordinate the image position maps to, as a
                    // continuous value (pixel centre at k + ½).
                    func continuous(_ along: Double, _ index: Int, _ storedIndex: Int) -> Double {
                        // Forward or reversed, by which way the stored index runs.
                        Double(storedIndex) + (Double(index) == along.rounded(.down) ? 0 : 0)
                    }
                    let fracX = q.x - q.x.rounded(.down)
                    let fracY = q.y - q.y.rounded(.down)
                    // Along each stored axis: the image axis that runs along
                    // it, forward or reversed.
                    let sx = turned ? fracY : fracX
                    let sy = turned ? fracX : fracY
                    let forwardX =
                        orientation.storedRect(
                            PixelRect(x: 1, y: 1, width: 1, height: 1),
                            storedSize: PixelSize(width: width, height: height)
                        ).x
                        > orientation.storedRect(
                            PixelRect(x: 0, y: 0, width: 1, height: 1),
                            storedSize: PixelSize(width: width, height: height)
                        ).x
                    let forwardY =
                        orientation.storedRect(
                            PixelRect(x: 1, y: 1, width: 1, height: 1),
                            storedSize: PixelSize(width: width, height: height)
                        ).y
                        > orientation.storedRect(
                            PixelRect(x: 0, y: 0, width: 1, height: 1),
                            storedSize: PixelSize(width: width, height: height)
                        ).y
                    let expectedX = Double(stored.x) + (forwardX ? sx : 1 - sx) - 0.5
                    let expectedY = Double(stored.y) + (forwardY ? sy : 1 - sy) - 0.5
                    _ = continuous
                    signed.x += readX - expectedX
                    signed.y += readY - expectedY
                    #expect(
                        abs(readX - expectedX) <= 2.5 && abs(readY - expectedY) <= 2.5,
                        "\(orientation) \(angle)° \(column),\(row): read \(readX),\(readY), expected \(expectedX),\(expectedY)"
                    )
                    for channel in 0..<3 {
                        difference = max(
                            difference,
                            abs(
                                shrunk.sample(x: column, y: row, channel: channel)
                                    - full.sample(x: column, y: row, channel: channel)))
                    }
                    compared += 1
                }
            }
            #expect(compared > 300)
            // No shift: a grid misplaced by half a shrunk pixel would move
            // every value by `shrink / 2` levels.
            #expect(
                abs(signed.x / Double(compared)) < 0.35 && abs(signed.y / Double(compared)) < 0.35,
                "\(orientation) \(angle)°: mean error \(signed.x / Double(compared)), \(signed.y / Double(compared))"
            )
            #expect(difference <= 2, "shrunk and full decodes differ by \(difference)")
        }
    }

    /// A circular crop: alpha outside the inscribed ellipse, and each edge
    /// pixel's alpha its exact coverage to 1/255 (against a 2000×2000
    /// supersampling of the pixel); the whole alpha sums to the ellipse's area.
    @Test func circularCropsHaveExactEdgeCoverage() throws {
        let (width, height) = (37, 24)
        for (x, y) in [(0, 11), (3, 3), (18, 0), (9, 1), (33, 20), (36, 12), (18, 12)] {
            let exact = EllipseMask.coverage(x: x, y: y, width: width, height: height)
            var inside = 0
            let n = 2000
            for i in 0..<n {
                for j in 0..<n {
                    let px = Double(x) + (Double(i) + 0.5) / Double(n)
                    let py = Double(y) + (Double(j) + 0.5) / Double(n)
                    let dx = (px - Double(width) / 2) / (Double(width) / 2)
                    let dy = (py - Double(height) / 2) / (Double(height) / 2)
                    if dx * dx + dy * dy <= 1 { inside += 1 }
                }
            }
            let sampled = Double(inside) / Double(n * n)
            #expect(abs(exact - sampled) < 0.5 / 255, "\(x),\(y): \(exact) vs \(sampled)")
        }
        let fixture = Fixture.corners(width: 200, height: 200)
        let source = try ImageSource(ImageInput(bytes: PNGEncoder().encode(fixture)))
        var job = CropJob(region: .pixels(PixelRect(x: 0, y: 0, width: 200, height: 200)))
        job.resampling.ellipse = true
        job.resampling.size = .exact(PixelSize(width: 64, height: 64))
        let (_, circle) = try Self.export(job, source)
        #expect(circle.colorType == .rgba)
        #expect(circle.sample(x: 0, y: 0, channel: 3) == 0)
        #expect(circle.sample(x: 32, y: 32, channel: 3) == 255)
        var total = 0
        for y in 0..<64 {
            for x in 0..<64 { total += circle.sample(x: x, y: y, channel: 3) }
        }
        #expect(abs(Double(total) / 255 - Double.pi * 32 * 32) < 2)
        // Unresized, the pixels inside are the source's own.
        job.resampling.size = nil
        let (plan, own) = try Self.export(job, source)
        #expect(plan.resampling?.resampler.filter == .nearest)
        #expect(
            own.sample(x: 100, y: 100, channel: 0) == fixture.sample(x: 100, y: 100, channel: 0))
        #expect(own.sample(x: 1, y: 1, channel: 3) == 0)
    }

    /// An unturned resize widens Lanczos-3 along each axis by that axis's
    /// own reduction: reducing only the height keeps vertical stripes 5 px
    /// wide at full contrast.
    @Test func eachAxisWidensByItsOwnReduction() throws {
        var samples = [UInt8]()
        for _ in 0..<100 {
            for x in 0..<100 { samples.append((x / 5) % 2 == 0 ? 230 : 20) }
        }
        let stripes = RasterImage(
            width: 100, height: 100, colorType: .gray, bitDepth: 8, samples: samples)
        let source = try ImageSource(ImageInput(bytes: PNGEncoder().encode(stripes)))
        var job = CropJob(region: .pixels(PixelRect(x: 0, y: 0, width: 100, height: 100)))
        job.resampling = CropJob.Resampling(size: .exact(PixelSize(width: 100, height: 20)))
        let (_, output) = try Self.export(job, source)
        let row = (0..<100).map { output.sample(x: $0, y: 10, channel: 0) }
        #expect(row[12] >= 225 && row[17] <= 25, "\(row.prefix(20))")
    }

    /// A turned JPEG output is rendered a band at a time into the encoder's
    /// ring: taller than the ring many times over, it decodes to the same
    /// picture as the PNG rendered whole (to the JPEG's own error).
    @Test func aStreamedJPEGIsThePictureRenderedWhole() throws {
        var samples = [UInt8]()
        for y in 0..<400 {
            for x in 0..<300 {
                samples += [
                    UInt8((x * 7 + y) & 0xFF), UInt8((y * 3) & 0xFF), UInt8((x + y) / 3 & 0xFF),
                ]
            }
        }
        let image = RasterImage(
            width: 300, height: 400, colorType: .rgb, bitDepth: 8, samples: samples)
        let source = try ImageSource(ImageInput(bytes: PNGEncoder().encode(image)))
        var job = CropJob(region: .pixels(PixelRect(x: 20, y: 10, width: 250, height: 370)))
        job.resampling = CropJob.Resampling(angle: 4, fill: .rgb(255, 255, 255))
        let (_, png) = try Self.export(job, source)
        job.format = .jpeg(JPEGEncoder(quality: 100))
        let (_, jpeg) = try Self.export(job, source)
        #expect(jpeg.width == png.width && jpeg.height == png.height)
        // The same pixels encoded whole, with the same coding, decode to
        // exactly the same samples.
        let whole = try JPEGEncoder.encoded(
            png, quality: 100, horizontal: [2, 1, 1], vertical: [2, 1, 1])
        let reference = try ImageSource(ImageInput(bytes: whole)).decode().image
        #expect(reference.samples == jpeg.samples)
    }

    /// A JPEG of an upright JPEG is decoded, rendered and encoded at once
    /// (each band rendered as soon as its rows are decoded): it decodes to
    /// exactly the samples of the same crop rendered whole and encoded with
    /// the same coding, turned or not, with and without shrink-on-load.
    @Test(arguments: [(0.0, 1200), (3.5, 600), (-20, 150), (0, 90)])
    func overlappedDecodeRenderEncodeIsTheWholeRender(angle: Double, width: Int) throws {
        let photo = Self.texture
        let source = try ImageSource(
            ImageInput(
                bytes: JPEGEncoder.encoded(
                    photo, quality: 95, horizontal: [2, 1, 1], vertical: [2, 1, 1])))
        var job = CropJob(region: .pixels(PixelRect(x: 30, y: 20, width: 720, height: 600)))
        job.resampling = CropJob.Resampling(
            angle: angle, size: .width(width), fill: .rgb(255, 255, 255))
        let (plan, whole) = try Self.export(job, source)  // PNG: rendered whole
        job.format = .jpeg(JPEGEncoder(quality: 100))
        let (_, overlapped) = try Self.export(job, source)
        let reference = try ImageSource(
            ImageInput(
                bytes: JPEGEncoder.encoded(
                    whole, quality: 100, horizontal: [2, 1, 1], vertical: [2, 1, 1]))
        ).decode().image
        #expect(
            reference.samples == overlapped.samples,
            "\(angle)° to \(width), shrink \(plan.resampling?.shrink ?? 0)")
    }

    /// The overlapped renderer waits, for each band of output rows, until
    /// the region rows its samples read are decoded: the count it waits for
    /// covers the lowest row any pixel of the band reads (its sample row and
    /// the filter's reach), at every angle, size and shrink.
    @Test func eachBandWaitsForEveryRowItReads() throws {
        var seed = UInt64(99)
        func next(_ range: ClosedRange<Int>) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((seed >> 33) % UInt64(range.count))
        }
        for trial in 0..<60 {
            let image = PixelSize<ImagePixels>(width: next(50...900), height: next(50...900))
            let frame = try StraightenedFrame(
                imageSize: image, angle: [0, 3.5, -45, 90, 170][trial % 5])
            let rect = PixelRect<StraightenedPixels>(
                x: next(-20...40), y: next(-20...40), width: next(10...image.width),
                height: next(10...image.height))
            guard let base = try? StraightenedCrop(frame: frame, rect: rect) else { continue }
            let crop = try base.resized(.width(next(5...rect.width * 2)))
            for filter in ResamplingFilter.allCases {
                let resampler = Resampler(filter: filter)
                let shrink = [1, 2, 4, 8][trial % 4]
                guard let read = crop.readRect(support: filter.support(reduction: crop.reduction))
                else { continue }
                let origin = PixelRect<ImagePixels>(
                    x: read.x / shrink, y: read.y / shrink,
                    width: (read.maxX + shrink - 1) / shrink - read.x / shrink,
                    height: (read.maxY + shrink - 1) / shrink - read.y / shrink)
                let reach: Double =
                    filter == .lanczos3
                    ? 3 * max(1, max(crop.reduction.x, crop.reduction.y) / Double(shrink)) : 1
                for start in stride(from: 0, to: crop.outputSize.height, by: 16) {
                    let rows = start..<min(crop.outputSize.height, start + 16)
                    let needed = resampler.regionRowsNeeded(
                        crop, rows: rows, at: origin, scale: shrink, offset: (0, 0))
                    var lowest = 0
                    for row in rows {
                        for column in [0, crop.outputSize.width / 2, crop.outputSize.width - 1] {
                            let q = crop.samplePosition(column: column, row: row)
                            let v = q.y / Double(shrink) - Double(origin.y) - 0.5
                            lowest = max(lowest, Int((v + reach).rounded(.down)) + 1)
                        }
                    }
                    #expect(needed >= min(lowest, origin.height), "\(filter) rows \(rows)")
                }
            }
        }
    }

    /// Variants of an upright JPEG are written from one decode shared by
    /// their renderers as it goes: each decodes to exactly what writing it
    /// alone gives.
    @Test func jpegVariantsFromOneDecodeAreEachAloneCrop() throws {
        let photo = Self.texture
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let input = path("photo.jpg")
        try AtomicFile.write(
            JPEGEncoder.encoded(photo, quality: 95, horizontal: [2, 1, 1], vertical: [2, 1, 1]),
            to: input, replacing: true)
        let source = try ImageSource.open(path: input)
        let variants: [(AspectRatio?, PixelSize<StraightenedPixels>, Double)] = [
            (AspectRatio(width: 1, height: 1), PixelSize(width: 256, height: 256), 0),
            (AspectRatio(width: 4, height: 5), PixelSize(width: 200, height: 250), 0),
            (AspectRatio(width: 16, height: 9), PixelSize(width: 320, height: 180), 2.5),
        ]
        let plans = try variants.map { ratio, size, angle throws in
            var job = CropJob(
                region: .largestInside(aspect: ratio.map { .ratio($0) }),
                format: .jpeg(JPEGEncoder(quality: 90)))
            job.resampling = CropJob.Resampling(angle: angle, size: .exact(size))
            return try job.plan(for: source)
        }
        #expect(Set(plans.compactMap { $0.resampling?.shrink }) == [2])
        let together = (0..<3).map { path("together-\($0).jpg") }
        let reports = try CropPlan.writeVariants(plans, to: together)
        #expect(reports.map(\.size.width) == [256, 200, 320])
        for (index, plan) in plans.enumerated() {
            let alone = path("alone-\(index).jpg")
            _ = try plan.write(to: alone)
            let a = try ImageSource.open(path: alone).decode().image
            let b = try ImageSource.open(path: together[index]).decode().image
            #expect(a.samples == b.samples, "variant \(index)")
        }
    }
}
