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

/// A container format's fuzz entry: the bytes as a `format` file in memory
/// (``fuzzImage(_:format:)``), then, with a smaller pixel limit, its leaks
/// looked for and a crop of its middle written as `output` (the format's
/// own writer: tiles copied, metadata written again).
public func fuzzCrop(
    _ data: UnsafePointer<UInt8>, _ size: Int, format: ImageFormat, output: OutputFormat
) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    fuzzImage(bytes, format: format)
    let limits = DecodeLimits(maxPixels: 4 << 20, maxDimension: 1 << 12)
    guard let source = try? ImageSource(ImageInput(bytes: bytes), limits: limits),
        source.format == format
    else { return 0 }
    _ = try? LeakCheck.findings(in: source)
    let seen = source.orientation.orientedSize(source.storedSize)
    let job = CropJob(
        region: .pixels(
            PixelRect(
                x: seen.width / 4, y: seen.height / 4, width: max(1, seen.width / 2),
                height: max(1, seen.height / 2))),
        format: output)
    if let plan = try? job.plan(for: source) {
        _ = try? plan.export(to: MemorySink())
    }
    return 0
}

/// An animation container's fuzz entry: the bytes as an animated `format`
/// file in memory (GIF, APNG as ``ImageFormat/png``, animated WebP), read
/// with tight limits, its displayed canvases composited, frame 1 made a
/// still, its leaks looked for, and its middle cropped into all three
/// animation formats in memory. Still files of the format are left to
/// their own target.
public func fuzzAnimation(_ data: UnsafePointer<UInt8>, _ size: Int, format: ImageFormat) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = DecodeLimits(
        maxPixels: 4 << 20, maxDimension: 1 << 12, maxFrames: 64, maxAnimationPixels: 8 << 20)
    let input = ImageInput(bytes: bytes)
    guard let animated = try? AnimatedImage(input, limits: limits),
        animated.animation.format == format
    else { return 0 }
    var frames = animated.displayedFrames.makeIterator()
    while (try? frames.nextFrame()) != nil {}
    _ = try? animated.frame(1)
    _ = try? LeakCheck.findings(input: input, limits: limits)
    let canvas = animated.size
    let middle = PixelRect<StoredPixels>(
        x: canvas.width / 4, y: canvas.height / 4, width: max(1, canvas.width / 2),
        height: max(1, canvas.height / 2))
    for output in [ImageFormat.gif, .png, .webp] {
        _ = try? animated.crop(middle, as: output, to: MemorySink())
    }
    return 0
}
