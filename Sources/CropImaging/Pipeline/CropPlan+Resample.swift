internal import CImagingShims
import CropGeometry
import Foundation

/// How a resampled crop is made: the straightened (or resized) crop and the
/// filter and fill it is rendered with.
public struct ResamplePlan: Sendable {
    /// The output rect, output size and sample positions.
    public let crop: StraightenedCrop
    /// The filter and fill.
    public let resampler: Resampler
    /// The JPEG shrink-on-load factor: 1, or 2, 4 or 8 when the source is a
    /// JPEG decoded at that fraction of its size through libjpeg-turbo's
    /// DCT scaling, the rest of the reduction left to the filter.
    public let shrink: Int
    /// Whether the output is cut to its inscribed ellipse (``EllipseMask``).
    public let ellipse: Bool

    /// A plan rendering `crop` with `resampler`, from pixels decoded at
    /// 1/`shrink` of their size, cut to the inscribed ellipse if `ellipse`.
    public init(
        crop: StraightenedCrop, resampler: Resampler, shrink: Int = 1, ellipse: Bool = false
    ) {
        self.crop = crop
        self.resampler = resampler
        self.shrink = shrink
        self.ellipse = ellipse
    }

    /// The shrink-on-load factor for `crop` from a JPEG: the largest of 8,
    /// 4 and 2 that is at most the smaller reduction (as Pillow's `draft`
    /// and libvips' `shrink` choose), else 1; never for `nearest`, which
    /// must pick source pixels.
    public static func jpegShrink(for crop: StraightenedCrop, filter: ResamplingFilter) -> Int {
        guard filter != .nearest else { return 1 }
        let least = min(crop.reduction.x, crop.reduction.y)
        return [8, 4, 2].first(where: { Double($0) <= least }) ?? 1
    }

    /// How far from a sample position the filter reads.
    public var support: Double { resampler.filter.support(reduction: crop.reduction) }
}

extension CropPlan {
    /// Resampled crops of one opened image, seen with one orientation,
    /// made from one decode: the union of their read rects, at the
    /// smallest JPEG shrink-on-load among them. The first plan's writer
    /// takes them all in one pass over the decode if it can (JPEG crops of
    /// an upright JPEG: ``FormatWriter/exportResampled(_:into:union:shrink:)``);
    /// else the union is decoded and turned upright once, and each plan's
    /// own writer renders and encodes its crop from it. A single resampled
    /// crop (``export(to:)``) is the case of one plan.
    ///
    /// `written` is told of each output once it is whole, in order, and
    /// may finish its report (a file committed, its path).
    ///
    /// - Precondition: `plans` are resampled plans of one ``ImageSource``
    ///   with one orientation, one sink each.
    static func exportResampled(
        _ plans: [CropPlan], into sinks: [any ByteSink],
        written: (Int, inout CropReport) throws(ImagingError) -> Void = { _, _ in }
    ) throws(ImagingError) -> [CropReport] {
        precondition(plans.count == sinks.count && !plans.isEmpty, "one sink per plan")
        precondition(plans.allSatisfy { $0.resampling != nil }, "resampled plans")
        let first = plans[0]
        let shrink = plans.compactMap(\.resampling?.shrink).min() ?? 1
        let union = readUnion(plans)
        if var reports = try first.format.writer.exportResampled(
            plans, into: sinks, union: union, shrink: shrink)
        {
            for index in reports.indices { try written(index, &reports[index]) }
            return reports
        }
        let region = try first.source.decodeForResampling(
            union, orientation: first.orientation, shrink: shrink, lenient: first.lenient)
        var reports: [CropReport] = []
        for (index, plan) in plans.enumerated() {
            // The region was decoded at the smallest shrink: the plan's
            // own filter widens for what remains.
            var report = try plan.format.writer.encodeResampled(
                plan, from: region, to: sinks[index])
            try written(index, &report)
            reports.append(report)
        }
        return reports
    }

    /// The smallest stored rect holding every one of `plans`' read rects.
    static func readUnion(_ plans: [CropPlan]) -> PixelRect<StoredPixels> {
        plans.dropFirst().reduce(plans[0].stored) { rect, plan in
            let next = plan.stored
            let (x0, y0) = (min(rect.x, next.x), min(rect.y, next.y))
            let (x1, y1) = (max(rect.maxX, next.maxX), max(rect.maxY, next.maxY))
            return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    /// The resample stage: the crop rendered from `region` with the plan's
    /// resampler, and cut to its ellipse when the plan asks.
    func rendered(from region: ResamplingRegion) -> RasterImage {
        guard let resample = resampling else { preconditionFailure("a resampled plan") }
        var rendered = resample.resampler.render(
            resample.crop, from: region.pixels, at: region.origin, scale: region.shrink,
            offset: region.offset)
        if resample.ellipse { rendered = rendered.maskedByEllipse() }
        return rendered
    }
}

/// Decoded pixels a resampler reads: upright, direct colour, and where
/// they lie in the image grid (shrunk by ``shrink`` for a JPEG decoded at
/// a fraction of its size).
struct ResamplingRegion {
    /// The pixels, upright, direct colour.
    var pixels: RasterImage
    /// Where they lie in the (shrunk) image grid.
    var origin: PixelRect<ImagePixels>
    /// The shrink-on-load factor (1 for none).
    var shrink: Int
    /// Where the image's top-left corner lies in the shrunk grid.
    var offset: (x: Double, y: Double)
    /// The decoder's warnings and checksum verdict.
    var warnings: [String]
    var checksum: DataChecksum?
}

extension PixelRect where Space == StoredPixels {
    /// This rect in the grid of an image of `full` decoded at 1/`shrink` of
    /// its size (libjpeg's DCT scaling: the size rounded up), rounded
    /// outward and clamped, with that grid's size.
    func shrunk(by shrink: Int, within full: PixelSize<StoredPixels>) -> (
        rect: PixelRect<StoredPixels>, grid: PixelSize<StoredPixels>
    ) {
        let grid = PixelSize<StoredPixels>(
            width: (full.width + shrink - 1) / shrink, height: (full.height + shrink - 1) / shrink)
        let x0 = x / shrink
        let y0 = y / shrink
        let x1 = min((maxX + shrink - 1) / shrink, grid.width)
        let y1 = min((maxY + shrink - 1) / shrink, grid.height)
        return (PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), grid)
    }
}

extension ImageSource {
    /// The stored rect `stored` decoded (at 1/`shrink` of its size for a
    /// JPEG when `shrink` > 1), turned upright for `orientation` and made
    /// direct colour.
    func decodeForResampling(
        _ stored: PixelRect<StoredPixels>, orientation: EXIFOrientation, shrink: Int,
        lenient: Bool
    ) throws(ImagingError) -> ResamplingRegion {
        if shrink > 1, reader.shrinksOnLoad {
            // The read rect in the grid shrunk by `shrink`, and where the
            // image lies in that grid as seen.
            let full = storedSize
            let (rect, shrunk) = stored.shrunk(by: shrink, within: full)
            let decoded = try reader.decodeShrunk(rect, shrink: shrink, of: self, lenient: lenient)
            // A mirrored axis puts the shrunk grid's rounding-up padding
            // before the image.
            let padded = orientation.orientedRect(
                PixelRect(x: 0, y: 0, width: full.width, height: full.height),
                storedSize: PixelSize(width: shrunk.width * shrink, height: shrunk.height * shrink))
            return ResamplingRegion(
                pixels: decoded.image.oriented(orientation).directColor(),
                origin: orientation.orientedRect(rect, storedSize: shrunk), shrink: shrink,
                offset: (Double(padded.x), Double(padded.y)), warnings: decoded.warnings,
                checksum: decoded.checksum)
        }
        let decoded = try decode(stored, lenient: lenient)
        return ResamplingRegion(
            pixels: decoded.image.oriented(orientation).directColor(),
            origin: orientation.orientedRect(stored, storedSize: storedSize), shrink: 1,
            offset: (0, 0), warnings: decoded.warnings, checksum: decoded.checksum)
    }
}

/// One decode's rows told to several consumers (the variants' renderers).
final class FanOutRows: RowConsumer, @unchecked Sendable {
    private let consumers: [any RowConsumer]

    init(_ consumers: [any RowConsumer]) {
        self.consumers = consumers
    }

    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError) {
        for consumer in consumers { try consumer.begin(pixels: pixels) }
    }

    func rowsReady(_ rows: Int) {
        for consumer in consumers { consumer.rowsReady(rows) }
    }

    func end(succeeded: Bool) throws(ImagingError) {
        var failure: ImagingError?
        for consumer in consumers {
            do throws(ImagingError) {
                try consumer.end(succeeded: succeeded)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
