import CropGeometry

/// An export verifier whose fixture is made in its own format and whose
/// crops are written in it (``JPEGExportVerifier``, ``WebPExportVerifier``):
/// what `cropkit verify --format` and `cropkit replay --export --format`
/// run for a format other than PNG.
public protocol FormatExportVerifier: Sendable {
    /// Makes the fixture for `sourceSize`.
    ///
    /// - Throws: ``ImagingError`` past the format's limits, or without its
    ///   library.
    init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError)
    /// The stored size of the fixture.
    var sourceSize: PixelSize<StoredPixels> { get }
    /// The most pixels of a fixture.
    static var maximumPixels: Int { get }
    /// The extension of the files it writes: "jpg", "webp".
    static var fileExtension: String { get }
    /// The checks of `result`'s crop; the output's bytes go to `path` too
    /// when there is one.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    func check(_ result: CropResult, writingTo path: String?) throws(ImagingError)
        -> [ExportCheck]
}

extension JPEGExportVerifier: FormatExportVerifier {
    /// "jpg".
    public static var fileExtension: String { "jpg" }
}

extension WebPExportVerifier: FormatExportVerifier {
    /// "webp".
    public static var fileExtension: String { "webp" }
}
