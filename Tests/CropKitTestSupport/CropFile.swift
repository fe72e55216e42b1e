import CropGeometry
import CropImaging

/// Crops `stored` out of the image file at `input`, turned for
/// `orientation`, into the PNG file `output`, through the library's one
/// pipeline (``ImageSource``, ``CropJob``, ``CropPlan``): what `cropkit crop
/// --pixels` does, for tests that start from a stored rect.
///
/// - Throws: ``ImagingError``, or ``CropPlanError`` when the rect is not
///   inside the image.
public func cropFile(
    input: String, stored: PixelRect<StoredPixels>, orientation: EXIFOrientation = .up,
    output: String, encoder: PNGEncoder = PNGEncoder(), replacing: Bool = false,
    limits: DecodeLimits = .standard, lenient: Bool = false
) throws -> CropReport {
    let source = try ImageSource.open(path: input, limits: limits)
    let job = CropJob(
        region: .pixels(orientation.orientedRect(stored, storedSize: source.storedSize)),
        orientation: orientation, format: .png(encoder), lenient: lenient)
    return try job.plan(for: source).write(to: output, replacing: replacing)
}

/// The crop `rect` (as seen; the whole image by default) of the image file
/// at `path`, written as `format` in memory, and the export's report.
///
/// - Throws: ``ImagingError``, or ``CropPlanError`` when the rect is not
///   inside the image.
public func cropInMemory(
    _ path: String, _ rect: PixelRect<ImagePixels>? = nil,
    format: OutputFormat = .png(PNGEncoder())
) throws -> (bytes: [UInt8], report: CropReport) {
    let source = try ImageSource.open(path: path)
    let seen = rect ?? PixelRect(size: source.orientation.orientedSize(source.storedSize))
    let plan = try CropJob(region: .pixels(seen), format: format).plan(for: source)
    let sink = MemorySink()
    let report = try plan.export(to: sink)
    return (sink.bytes, report)
}

/// The pixels of an image file in memory, as CropKit decodes them.
///
/// - Throws: ``ImagingError``.
public func decodedInMemory(_ bytes: [UInt8]) throws -> RasterImage {
    try ImageSource(ImageInput(bytes: bytes, name: "crop")).decode().image
}
