import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// JPEG crops that stay JPEG: copied in the DCT domain where the rect is on
/// the block grid (decoded with plain upsampling and the integer IDCT, the
/// crop equals the source at the rect, bit for bit), exact elsewhere, and
/// never carrying pixels or previews from outside the rect.
@Suite(.announcesSkips) struct JPEGCropTests {
    /// One kind of source: its name, sampling and coding.
    struct Kind: Sendable, CustomTestStringConvertible {
        var name: String
        var horizontal: [Int]
        var vertical: [Int]
        var progressive = false
        var arithmetic = false
        var restartInterval = 0
        var testDescription: String { name }
    }

    static let kinds: [Kind] = [
        Kind(name: "4:4:4", horizontal: [1, 1, 1], vertical: [1, 1, 1]),
        Kind(name: "4:2:2", horizontal: [2, 1, 1], vertical: [1, 1, 1]),
        Kind(name: "4:2:0", horizontal: [2, 1, 1], vertical: [2, 1, 1]),
        Kind(name: "4:4:0", horizontal: [1, 1, 1], vertical: [2, 1, 1]),
        Kind(name: "4:1:1", horizontal: [4, 1, 1], vertical: [1, 1, 1]),
        Kind(name: "gray", horizontal: [1], vertical: [1]),
        Kind(
            name: "progressive 4:2:0", horizontal: [2, 1, 1], vertical: [2, 1, 1], progressive: true
        ),
        Kind(
            name: "arithmetic 4:2:0", horizontal: [2, 1, 1], vertical: [2, 1, 1], arithmetic: true),
        Kind(
            name: "restart markers 4:2:0", horizontal: [2, 1, 1], vertical: [2, 1, 1],
            restartInterval: 3),
    ]

    static func source(_ kind: Kind, width: Int = 203, height: Int = 157, markers: [UInt8] = [])
        throws -> ImageSource
    {
        let bytes = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: width, height: height, gray: kind.name == "gray"), quality: 85,
            horizontal: kind.horizontal, vertical: kind.vertical, progressive: kind.progressive,
            arithmetic: kind.arithmetic, restartInterval: kind.restartInterval, markers: markers)
        return try ImageSource(ImageInput(bytes: bytes, name: kind.name))
    }

    static func crop(
        _ source: ImageSource, _ rect: PixelRect<ImagePixels>, encoder: JPEGEncoder = JPEGEncoder()
    ) throws -> (plan: CropPlan, report: CropReport, bytes: [UInt8]) {
        let plan = try CropJob(region: .pixels(rect), format: .jpeg(encoder)).plan(for: source)
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        return (plan, report, sink.bytes)
    }

    @Test(arguments: kinds)
    func aGridRectIsCopiedBitForBit(kind: Kind) throws {
        let source = try Self.source(kind)
        guard let info = source.header as? JPEGFileInfo else { throw CocoaError(.fileReadUnknown) }
        let grid = info.blockGrid
        // On the grid at every edge but the photo's own right and bottom.
        let rect = PixelRect<ImagePixels>(
            x: grid.width, y: grid.height, width: 203 - grid.width, height: 157 - grid.height)
        let (plan, report, bytes) = try Self.crop(source, rect)
        #expect(
            report.details(as: JPEGWriteReport.self)?.method == .lossless,
            "\(kind.name): \(String(describing: report.details(as: JPEGWriteReport.self)))")
        #expect(report.details(as: JPEGWriteReport.self)?.reencodedBlocks == 0)
        #expect(report.details(as: JPEGWriteReport.self)?.progressive == kind.progressive)
        #expect(report.details(as: JPEGWriteReport.self)?.arithmetic == kind.arithmetic)
        let output = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        #expect(output.storedSize == plan.stored.size)
        let expected = try source.decodePlainJPEG(plan.stored)
        let got = try output.decodePlainJPEG()
        #expect(got.image.samples == expected.image.samples, "\(kind.name): pixels differ")
        // An inner rect with all four edges on the grid is copied too.
        let inner = PixelRect<ImagePixels>(
            x: grid.width, y: grid.height, width: 2 * grid.width, height: 2 * grid.height)
        let small = try Self.crop(source, inner)
        #expect(small.report.details(as: JPEGWriteReport.self)?.method == .lossless)
        let smallOutput = try ImageSource(ImageInput(bytes: small.bytes, name: "crop"))
        #expect(
            try smallOutput.decodePlainJPEG().image.samples
                == source.decodePlainJPEG(small.plan.stored).image.samples)
    }

    /// A rect whose right and bottom edges cut blocks inside the photo:
    /// every other block is copied; the edge blocks are re-encoded with the
    /// rect's edge over their padding, so the pixels beyond the rect that
    /// the padding held are gone.
    @Test(arguments: kinds.filter { !$0.progressive })
    func edgeBlocksHoldNoPixelsBeyondTheRect(kind: Kind) throws {
        let source = try Self.source(kind)
        guard let info = source.header as? JPEGFileInfo else { throw CocoaError(.fileReadUnknown) }
        let grid = info.blockGrid
        let rect = PixelRect<ImagePixels>(
            x: grid.width, y: 0, width: 3 * grid.width + 3, height: 2 * grid.height + 3)
        let (plan, report, bytes) = try Self.crop(source, rect)
        #expect(report.details(as: JPEGWriteReport.self)?.method == .losslessEdgesReencoded)
        #expect((report.details(as: JPEGWriteReport.self)?.reencodedBlocks ?? 0) > 0)
        let output = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        #expect(output.storedSize == plan.stored.size)
        let got = try output.decodePlainJPEG().image
        let expected = try source.decodePlainJPEG(plan.stored).image
        // Whole iMCUs left of and above the re-encoded edge are exact; the
        // re-encoded ones stay close (a second quantization of the block).
        let exactWidth = 3 * grid.width
        let exactHeight = 2 * grid.height
        let channels = got.colorType.channels
        var squared = 0
        var count = 0
        for y in 0..<got.height {
            for x in 0..<got.width {
                for c in 0..<channels {
                    let i = (y * got.width + x) * channels + c
                    let difference = Int(got.samples[i]) - Int(expected.samples[i])
                    if x < exactWidth && y < exactHeight {
                        #expect(difference == 0, "\(kind.name) (\(x),\(y))")
                    } else {
                        squared += difference * difference
                        count += 1
                    }
                }
            }
        }
        let psnr = 10 * log10(255.0 * 255.0 / max(Double(squared) / Double(max(count, 1)), 1e-9))
        #expect(psnr > 28, "\(kind.name): edge blocks at \(psnr) dB")
        // The padding: decoded as a wider image, the columns past the rect
        // in the last block repeat the edge instead of the source beyond
        // it. Without the fix (the control), they are the source's pixels.
        let padded = try JPEGPadding.columnsPastTheEdge(bytes, source: source, stored: plan.stored)
        var leaky = JPEGEncoder()
        leaky.fixesEdges = false
        let control = try Self.crop(source, rect, encoder: leaky)
        let leaked = try JPEGPadding.columnsPastTheEdge(
            control.bytes, source: source, stored: control.plan.stored)
        #expect(
            leaked.checked > 10 && leaked.matchingSource * 10 > leaked.checked * 9,
            "\(kind.name) control: \(leaked)")
        #expect(padded.matchingSource * 20 < max(padded.checked, 1), "\(kind.name): \(padded)")
    }

    @Test func losslessRefusesAnOffGridRectAndSnapGrows() throws {
        let source = try Self.source(Self.kinds[2])
        let rect = PixelRect<ImagePixels>(x: 17, y: 16, width: 40, height: 33)
        #expect(throws: CropPlanError.self) {
            _ = try CropJob(region: .pixels(rect), format: .jpeg(JPEGEncoder(method: .lossless)))
                .plan(for: source)
        }
        do {
            _ = try CropJob(region: .pixels(rect), format: .jpeg(JPEGEncoder(method: .lossless)))
                .plan(for: source)
        } catch {
            #expect(
                error.description.contains(
                    "16,16,48,48 (grown outward) and 32,16,16,32 (shrunk inward)"),
                "\(error)")
        }
        let snapped = try Self.crop(source, rect, encoder: JPEGEncoder(snapsToBlocks: true))
        #expect(snapped.plan.result.rect == PixelRect(x: 16, y: 16, width: 48, height: 48))
        #expect(snapped.report.details(as: JPEGWriteReport.self)?.method == .lossless)
        // By default: the exact rect, re-encoded with the source's tables.
        let exact = try Self.crop(source, rect)
        #expect(exact.plan.result.rect == rect)
        #expect(exact.report.details(as: JPEGWriteReport.self)?.method == .reencoded)
        #expect(exact.report.details(as: JPEGWriteReport.self)?.tables == "source tables")
        let output = try ImageSource(ImageInput(bytes: exact.bytes, name: "crop"))
        #expect(output.storedSize == PixelSize(width: 40, height: 33))
    }

    /// A sequential source is entropy-decoded only down to the crop's last
    /// block row.
    @Test func aTopCropStopsDecodingBelowIt() throws {
        let source = try Self.source(Self.kinds[2], width: 320, height: 480)
        let top = try Self.crop(source, PixelRect(x: 0, y: 0, width: 320, height: 64))
        #expect(top.report.details(as: JPEGWriteReport.self)?.stoppedEarly == true)
        let bottom = try Self.crop(source, PixelRect(x: 0, y: 416, width: 320, height: 64))
        #expect(bottom.report.details(as: JPEGWriteReport.self)?.stoppedEarly == false)
        let output = try ImageSource(ImageInput(bytes: top.bytes, name: "crop"))
        #expect(
            try output.decodePlainJPEG().image.samples
                == source.decodePlainJPEG(top.plan.stored).image.samples)
        // A crop below the top: the rows above it give their memory back as
        // the decode passes them, and the crop is still exact.
        let middle = try Self.crop(source, PixelRect(x: 0, y: 256, width: 320, height: 64))
        #expect(middle.report.details(as: JPEGWriteReport.self)?.stoppedEarly == true)
        let middleOutput = try ImageSource(ImageInput(bytes: middle.bytes, name: "crop"))
        #expect(
            try middleOutput.decodePlainJPEG().image.samples
                == source.decodePlainJPEG(middle.plan.stored).image.samples)
    }
}

/// What an encoder hid in the padding of a crop's last block column.
enum JPEGPadding {
    struct Finding: CustomStringConvertible {
        var checked = 0
        var matchingSource = 0
        var description: String {
            "\(matchingSource) of \(checked) padding samples equal the source's"
        }
    }

    /// Decodes `crop` as if it were wider (its SOF width raised to the next
    /// block-grid multiple), so the padding columns of the last block become
    /// visible, and counts those that equal the source's pixels beyond the
    /// rect where the source differs from the rect's edge.
    static func columnsPastTheEdge(
        _ crop: [UInt8], source: ImageSource, stored: PixelRect<StoredPixels>
    ) throws -> Finding {
        guard let info = source.header as? JPEGFileInfo else { return Finding() }
        let grid = info.blockGrid
        let widened = (stored.width + grid.width - 1) / grid.width * grid.width
        guard widened > stored.width, stored.maxX + (widened - stored.width) <= info.width else {
            return Finding()
        }
        var bytes = crop
        // The SOF marker's width field.
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { break }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                bytes[i + 7] = UInt8(widened >> 8)
                bytes[i + 8] = UInt8(widened & 0xFF)
                break
            }
            i += 2 + length
        }
        let seen = try ImageSource(ImageInput(bytes: bytes, name: "widened")).decodePlainJPEG()
            .image
        let beyond = try source.decodePlainJPEG(
            PixelRect(x: stored.x, y: stored.y, width: widened, height: stored.height)
        ).image
        let channels = seen.colorType.channels
        var finding = Finding()
        // The last luma block's padding columns (those past it are the
        // encoder's dummy blocks, which copy nothing).
        let padding = min((stored.width + 7) / 8 * 8, widened)
        for y in 0..<min(seen.height, beyond.height) {
            for x in stored.width..<padding {
                for c in 0..<channels {
                    let at = (y * widened + x) * channels + c
                    let edge = (y * widened + stored.width - 1) * channels + c
                    // Only where the source beyond differs clearly from the edge.
                    guard abs(Int(beyond.samples[at]) - Int(beyond.samples[edge])) > 12 else {
                        continue
                    }
                    finding.checked += 1
                    if abs(Int(seen.samples[at]) - Int(beyond.samples[at])) <= 2 {
                        finding.matchingSource += 1
                    }
                }
            }
        }
        return finding
    }
}

extension JPEGCropTests {
    /// Every EXIF orientation: the crop of the rect as seen cuts the stored
    /// rect behind it, losslessly, and keeps the orientation, so it displays
    /// as the rect seen.
    @Test(arguments: EXIFOrientation.allCases)
    func everyOrientationIsCroppedAsStoredAndKept(orientation: EXIFOrientation) throws {
        let thumbnail = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 8, height: 8), horizontal: [1, 1, 1], vertical: [1, 1, 1])
        let exif =
            Array("Exif\0\0".utf8)
            + DemoPhoto.exif(thumbnail: thumbnail, orientation: orientation.rawValue)
        let markers =
            [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
        let source = try Self.source(Self.kinds[2], width: 160, height: 96, markers: markers)
        #expect(source.orientation == orientation)
        let seen = orientation.orientedSize(source.storedSize)
        let rect = PixelRect<ImagePixels>(
            x: 0, y: 0, width: seen.width / 2, height: seen.height / 2)
        let (plan, report, bytes) = try Self.crop(source, rect)
        let output = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        #expect(output.orientation == orientation)
        #expect(output.orientation.orientedSize(output.storedSize) == rect.size)
        #expect(output.storedSize == plan.stored.size)
        // Every quarter of a 160x96 photo lies on its 16-px grid, whichever
        // way it is turned: the crop is lossless, bit for bit.
        #expect(
            report.details(as: JPEGWriteReport.self)?.method == .lossless,
            "\(orientation): \(plan.stored)")
        #expect(
            try output.decodePlainJPEG().image.samples
                == source.decodePlainJPEG(plan.stored).image.samples)
    }
}
