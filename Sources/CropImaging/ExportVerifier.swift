import CropGeometry

/// Runs the export checks for mappings of one source size: makes the two
/// fixtures of that size once, as PNG files in memory, exports each crop
/// through the real pipeline (``CropJob``, ``CropPlan/export(to:)``), reads
/// the output back and checks its pixels.
public final class ExportVerifier {
    /// The stored size of the fixtures.
    public let sourceSize: PixelSize<StoredPixels>
    private let corners: ImageSource
    private let coordinates: ImageSource

    /// The largest fixture side, and the most pixels, a verifier makes.
    public static let maximumSide = 65536
    /// The most pixels of a fixture.
    public static let maximumPixels = 100_000_000

    /// Makes the fixtures for `sourceSize`.
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumSide`` or ``maximumPixels``.
    public init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError) {
        guard Self.canVerify(sourceSize) else {
            let (pixels, overflow) = sourceSize.width.multipliedReportingOverflow(
                by: sourceSize.height)
            throw .limitExceeded(
                .fixturePixels, limit: Self.maximumPixels, actual: overflow ? Int.max : pixels)
        }
        self.sourceSize = sourceSize
        let fast = PNGEncoder(level: 1)
        corners = try ImageSource(
            ImageInput(
                bytes: try fast.encode(
                    Fixture.corners(width: sourceSize.width, height: sourceSize.height)),
                name: "corners fixture"))
        coordinates = try ImageSource(
            ImageInput(
                bytes: try fast.encode(
                    Fixture.coordinates(width: sourceSize.width, height: sourceSize.height)),
                name: "coordinates fixture"))
    }

    /// Whether fixtures of `size` are within what a verifier makes.
    public static func canVerify(_ size: PixelSize<StoredPixels>) -> Bool {
        size.width <= maximumSide && size.height <= maximumSide
            && size.width * size.height <= maximumPixels
    }

    /// Exports `result`'s crop of the corners fixture to `path` (a PNG a
    /// person can look at), replacing any file there.
    ///
    /// - Throws: ``ImagingError``.
    public func exportCorners(_ result: CropResult, to path: String) throws(ImagingError) {
        _ = try plan(result, of: corners).write(to: path, replacing: true)
    }

    /// The four checks for one mapping result (whose source size must be this
    /// verifier's): size, corner markers, no transparency, coordinates.
    ///
    /// - Throws: ``ImagingError`` when an export or its read-back fails.
    public func check(_ result: CropResult) throws(ImagingError) -> [ExportCheck] {
        let cornersOut = try exported(result, of: corners)
        let coordinatesOut = try exported(result, of: coordinates)
        return [
            ExportChecks.size(of: cornersOut, equals: result.rect),
            ExportChecks.cornerMarkers(
                in: cornersOut, stored: result.stored, sourceSize: sourceSize),
            ExportChecks.noTransparentPixels(in: cornersOut),
            ExportChecks.coordinates(
                in: coordinatesOut, stored: result.stored, orientation: result.orientation),
        ]
    }

    /// The plan for `result`'s crop of `fixture`: the rect as seen, with the
    /// result's orientation, at the fastest level.
    private func plan(_ result: CropResult, of fixture: ImageSource) throws(ImagingError)
        -> CropPlan
    {
        precondition(result.sourceSize == sourceSize, "the result is for another source size")
        let job = CropJob(
            region: .pixels(result.rect), orientation: result.orientation,
            format: .png(PNGEncoder(level: 1)))
        do throws(CropPlanError) {
            return try job.plan(for: fixture)
        } catch {
            // A result of this source size always lies inside it.
            preconditionFailure("a result of the fixture's size has no plan: \(error)")
        }
    }

    /// `result`'s crop of `fixture`, exported to memory and decoded back.
    private func exported(_ result: CropResult, of fixture: ImageSource) throws(ImagingError)
        -> RasterImage
    {
        let sink = MemorySink()
        _ = try plan(result, of: fixture).export(to: sink)
        return try ImageSource(ImageInput(bytes: sink.bytes, name: "exported crop")).decode().image
    }
}
