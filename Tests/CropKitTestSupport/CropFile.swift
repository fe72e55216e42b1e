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
