import CropGeometry
import CropImaging

/// Reads `bytes` as an image of `format` with tight limits, decodes it whole
/// and a third of it, and exports that third (turned) to memory.
public func fuzzImage(_ bytes: [UInt8], format: ImageFormat) {
    let limits = DecodeLimits(
        maxPixels: 16 << 20, maxDimension: 1 << 14, maxScans: 50)
    guard var source = try? ImageSource(ImageInput(bytes: bytes), limits: limits),
        source.format == format
    else { return }
    let size = source.storedSize
    let third = PixelRect<StoredPixels>(
        x: size.width / 3, y: size.height / 3, width: max(1, size.width / 3),
        height: max(1, size.height / 3))
    // Both PNG inflaters (ISA-L's reader when it is installed, and libpng).
    for inflater in [Inflater.automatic, .zlib] {
        source.inflater = inflater
        _ = try? source.decode()
        _ = try? source.decode(third, lenient: true)
    }
    source.inflater = .automatic
    let job = CropJob(
        region: .pixels(
            PixelRect(x: third.y, y: third.x, width: third.height, height: third.width)),
        orientation: .right, format: .png(PNGEncoder(level: 1, threads: 2)))
    if let plan = try? job.plan(for: source) {
        _ = try? plan.export(to: MemorySink())
    }
}
