import CropGeometry
import Foundation

/// Renders a resampled crop band by band on a thread of its own while the
/// decoder fills the region (``RowConsumer``): each band waits only for the
/// region rows its samples read, is masked and flattened for JPEG where the
/// plan asks (``JPEGBandFlattener``), then goes into the encoder's ring.
final class OverlappedRenderer: RowConsumer, @unchecked Sendable {
    private let crop: StraightenedCrop
    private let resampler: Resampler
    private let origin: PixelRect<ImagePixels>
    private let scale: Int
    private let offset: (x: Double, y: Double)
    private let regionColorType: ColorType
    private let regionBitDepth: Int
    private let ring: RingJPEGEncode
    private var flattener: JPEGBandFlattener
    private let lock = NSCondition()
    private var decodedRows = 0
    private var decodeEnded = false
    private var finished = false
    private var allRendered = false

    /// Output rows rendered at once.
    private static let band = 16

    /// A renderer of `crop` from a region of `regionColorType` at
    /// `regionBitDepth` lying at `origin` (in the grid shrunk by `scale`,
    /// the image's corner at `offset`), into `ring` through `flattener`.
    init(
        crop: StraightenedCrop, resampler: Resampler, origin: PixelRect<ImagePixels>,
        scale: Int, offset: (x: Double, y: Double), regionColorType: ColorType,
        regionBitDepth: Int, flattener: JPEGBandFlattener, ring: RingJPEGEncode
    ) {
        self.crop = crop
        self.resampler = resampler
        self.origin = origin
        self.scale = scale
        self.offset = offset
        self.regionColorType = regionColorType
        self.regionBitDepth = regionBitDepth
        self.flattener = flattener
        self.ring = ring
    }

    /// Whether every output row was rendered (false when the decode failed).
    var completed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return allRendered
    }

    /// How many output pixels were not opaque before they were flattened;
    /// read once ``end(succeeded:)`` has returned.
    var translucentPixels: Int {
        lock.lock()
        defer { lock.unlock() }
        return flattener.translucent
    }

    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError) {
        let address = UInt(bitPattern: pixels)
        _ = StageThread { [self] in renderBands(address) }
    }

    func rowsReady(_ rows: Int) {
        lock.lock()
        decodedRows = rows
        lock.broadcast()
        lock.unlock()
    }

    func end(succeeded: Bool) throws(ImagingError) {
        lock.lock()
        decodeEnded = true
        lock.broadcast()
        while !finished { lock.wait() }
        lock.unlock()
    }

    /// The renderer thread: each band once its region rows are decoded.
    private func renderBands(_ address: UInt) {
        let bytes =
            origin.width * origin.height * regionColorType.channels * (regionBitDepth == 16 ? 2 : 1)
        let region = RegionPixels(
            samples: UnsafeBufferPointer(
                start: UnsafePointer<UInt8>(bitPattern: address), count: bytes),
            width: origin.width, height: origin.height, colorType: regionColorType,
            bitDepth: regionBitDepth)
        // Rows that are not the encoder's yet are rendered into a band of
        // their own first.
        let direct = flattener.passesRowsThrough
        let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(
            capacity: direct ? 0 : Self.band * flattener.renderedRowBytes)
        defer { scratch.deallocate() }
        let outputRowBytes = crop.outputSize.width * flattener.outputChannels
        let height = crop.outputSize.height
        var rendered = true
        for start in stride(from: 0, to: height, by: Self.band) {
            let rows = start..<min(height, start + Self.band)
            let needed = resampler.regionRowsNeeded(
                crop, rows: rows, at: origin, scale: scale, offset: offset)
            lock.lock()
            while decodedRows < needed && !decodeEnded { lock.wait() }
            let ready = decodedRows >= needed
            lock.unlock()
            guard ready else {
                rendered = false
                break
            }
            ring.waitForSpace(rows)
            if direct {
                resampler.render(
                    crop, from: region, at: origin, scale: scale, offset: offset, rows: rows,
                    ringRows: ring.ringRows, into: ring.ring)
            } else {
                resampler.render(
                    crop, from: region, at: origin, scale: scale, offset: offset, rows: rows,
                    ringRows: Self.band, into: scratch)
                // Only this thread touches the flattener until `finished`.
                guard let band = scratch.baseAddress, let ringBase = ring.ring.baseAddress else {
                    rendered = false
                    break
                }
                for row in rows {
                    flattener.flatten(
                        row: row, from: band + (row % Self.band) * flattener.renderedRowBytes,
                        into: ringBase + (row % ring.ringRows) * outputRowBytes)
                }
            }
            ring.produced(upTo: rows.upperBound)
        }
        lock.lock()
        allRendered = rendered
        finished = true
        lock.broadcast()
        lock.unlock()
    }
}
