internal import CImagingShims
import CropGeometry
import CropTestKit
import Dispatch

/// Runs the export checks for mappings of one source size: makes the two
/// fixtures of that size once, as PNG files in memory, exports each crop
/// through the real pipeline (``CropJob``, ``CropPlan/export(to:)``), reads
/// the output back and checks its pixels.
///
/// Everything streams: the fixtures are compressed while their rows are
/// made, and the exported crops are checked row by row as they decode, so
/// a 10000×10000 source (1 GB of fixture pixels) is checked in a few tens of
/// MB.
public final class ExportVerifier: Sendable {
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
        let (width, height) = (sourceSize.width, sourceSize.height)
        // The two fixtures at once: each pipeline's maker and decoder is one
        // thread, so two keep the cores busier than one after the other.
        (corners, coordinates) = try bothAtOnce(
            { () throws(ImagingError) in
                try ImageSource(
                    ImageInput(
                        bytes: try Fixture.png(.corners, width: width, height: height),
                        name: "corners fixture"))
            },
            { () throws(ImagingError) in
                try ImageSource(
                    ImageInput(
                        bytes: try Fixture.png(.coordinates, width: width, height: height),
                        name: "coordinates fixture"))
            })
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
        try check(result, writingCornersTo: nil)
    }

    /// ``check(_:)``, also writing the checked crop of the corners fixture
    /// to `path` (atomically, replacing any file there): what
    /// ``exportCorners(_:to:)`` writes, without exporting it twice.
    ///
    /// - Throws: ``ImagingError`` when an export, its read-back or the
    ///   write fails.
    public func check(_ result: CropResult, writingCornersTo path: String?) throws(ImagingError)
        -> [ExportCheck]
    {
        let (cornerChecks, coordinatesCheck) = try bothAtOnce(
            { () throws(ImagingError) in try checkCorners(result, writingTo: path) },
            { () throws(ImagingError) in try checkCoordinates(result) })
        return cornerChecks + [coordinatesCheck]
    }

    /// Checks (a) to (c) on `result`'s crop of the corners fixture, written
    /// to `path` too when there is one.
    private func checkCorners(_ result: CropResult, writingTo path: String?) throws(ImagingError)
        -> [ExportCheck]
    {
        let cornersBytes = try exportedBytes(result, of: corners)
        if let path { try AtomicFile.write(cornersBytes, to: path, replacing: true) }
        let cornersOut = try ImageSource(ImageInput(bytes: cornersBytes, name: "exported crop"))
        var inspection = ExportInspection(
            pattern: .corners, fixtureSize: sourceSize, crop: result.stored,
            orientation: result.orientation, outputWidth: cornersOut.storedSize.width,
            outputHeight: cornersOut.storedSize.height)
        try Self.inspectRows(of: cornersOut) { inspection.add(row: $1, y: $0) }
        return [inspection.size, inspection.cornerMarkers, inspection.noTransparency]
    }

    /// Check (d) on `result`'s crop of the coordinates fixture.
    private func checkCoordinates(_ result: CropResult) throws(ImagingError) -> ExportCheck {
        let coordinatesOut = try ImageSource(
            ImageInput(bytes: try exportedBytes(result, of: coordinates), name: "exported crop"))
        var inspection = ExportInspection(
            pattern: .coordinates, fixtureSize: sourceSize, crop: result.stored,
            orientation: result.orientation, outputWidth: coordinatesOut.storedSize.width,
            outputHeight: coordinatesOut.storedSize.height)
        // An export of another size is not decoded: its pixels are not
        // compared, and the check says so.
        if inspection.expectedSize.width == coordinatesOut.storedSize.width
            && inspection.expectedSize.height == coordinatesOut.storedSize.height
        {
            try Self.inspectRows(of: coordinatesOut) { inspection.add(row: $1, y: $0) }
        }
        return inspection.coordinates
    }

    /// Decodes the whole of `source`, handing each row to `inspect` as soon
    /// as it is final; rows inspected are given back, so only a few are
    /// held at once.
    private static func inspectRows(
        of source: ImageSource, _ inspect: (Int, UnsafePointer<UInt8>) -> Void
    ) throws(ImagingError) {
        let inspector = RowInspector(
            rowBytes: source.storedSize.width * source.pixelFormat.colorType.channels
                * (source.pixelFormat.bitDepth == 16 ? 2 : 1))
        try withoutActuallyEscaping(inspect) { (inspect) throws(ImagingError) in
            inspector.inspect = inspect
            defer { inspector.inspect = nil }
            _ = try source.decode(
                PixelRect(size: source.storedSize), lenient: false, rows: inspector)
        }
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

    /// `result`'s crop of `fixture`, exported to memory.
    private func exportedBytes(_ result: CropResult, of fixture: ImageSource)
        throws(ImagingError) -> [UInt8]
    {
        let sink = MemorySink()
        _ = try plan(result, of: fixture).export(to: sink)
        return sink.bytes
    }
}

/// A decode's rows handed to a closure as each is final, then given back
/// (``RowConsumer``): how a whole image is checked without holding it.
private final class RowInspector: RowConsumer {
    private let rowBytes: Int
    var inspect: ((Int, UnsafePointer<UInt8>) -> Void)?
    private var pixels: UnsafePointer<UInt8>?
    private var done = 0
    private var released = 0

    init(rowBytes: Int) { self.rowBytes = rowBytes }

    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError) {
        self.pixels = pixels
    }

    func rowsReady(_ rows: Int) {
        guard let pixels, let inspect, rows > done else { return }
        for y in done..<rows { inspect(y, pixels + y * rowBytes) }
        done = max(done, rows)
        let end = ck_page_floor(pixels, done * rowBytes)
        if end > released {
            ck_release_pages(pixels, released, end)
            released = end
        }
    }

    func end(succeeded: Bool) throws(ImagingError) {}
}

/// Runs `first` and `second` on two threads at once and returns both
/// results, or the first one's error (else the second's).
private func bothAtOnce<A: Sendable, B: Sendable>(
    _ first: @Sendable () throws(ImagingError) -> A,
    _ second: @Sendable () throws(ImagingError) -> B
) throws(ImagingError) -> (A, B) {
    let outcomes = PairOfOutcomes<A, B>()
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                // Each iteration writes its own field only.
                if index == 0 {
                    outcomes.first = Result { () throws(ImagingError) in try first() }
                } else {
                    outcomes.second = Result { () throws(ImagingError) in try second() }
                }
            }
        }
    }
    guard let a = outcomes.first, let b = outcomes.second else {
        preconditionFailure("concurrentPerform ran both iterations")
    }
    return (try a.get(), try b.get())
}

/// Where ``bothAtOnce(_:_:)``'s two threads leave their results: each writes
/// its own field, read only after both have ended.
private final class PairOfOutcomes<A, B>: @unchecked Sendable {
    var first: Result<A, ImagingError>?
    var second: Result<B, ImagingError>?
}
