import CropGeometry

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the export checks for mappings of one source size: writes the two
/// fixtures of that size once, exports each crop through the real file
/// pipeline (``CropExport/cropPNG(input:stored:orientation:output:encoder:replacing:limits:)``),
/// reads the output back and checks its pixels.
public final class ExportVerifier {
    public let sourceSize: PixelSize<StoredPixels>
    private let folder: String
    private let cornersPath: String
    private let coordinatesPath: String
    private var counter = 0

    /// Writes the fixtures for `sourceSize` into a new temporary folder.
    ///
    /// - Throws: ``ImagingError`` when the folder or the fixtures cannot be written.
    public init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError) {
        guard sourceSize.width <= 65536, sourceSize.height <= 65536,
            sourceSize.width * sourceSize.height <= 100_000_000
        else {
            throw ImagingError(
                .limit,
                "export checks use fixtures of at most 65536 pixels a side and 100 megapixels, not \(sourceSize)"
            )
        }
        self.sourceSize = sourceSize
        var template = Array("/tmp/cropkit-verify-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ImagingError(
                .output, "cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        folder = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        cornersPath = folder + "/corners.png"
        coordinatesPath = folder + "/coordinates.png"
        let fast = PNGEncoder(level: 1)
        try AtomicFile.write(
            try fast.encode(Fixture.corners(width: sourceSize.width, height: sourceSize.height)),
            to: cornersPath,
            replacing: true)
        try AtomicFile.write(
            try fast.encode(
                Fixture.coordinates(width: sourceSize.width, height: sourceSize.height)),
            to: coordinatesPath, replacing: true)
    }

    deinit {
        for name in (try? listFolder(folder)) ?? [] { unlink(folder + "/" + name) }
        rmdir(folder)
    }

    /// Exports `result`'s crop of the corners fixture to `path` (a PNG a
    /// person can look at), replacing any file there.
    public func exportCorners(_ result: CropResult, to path: String) throws(ImagingError) {
        precondition(result.sourceSize == sourceSize, "the result is for another source size")
        _ = try CropExport.cropPNG(
            input: cornersPath, stored: result.stored, orientation: result.orientation,
            output: path,
            encoder: PNGEncoder(level: 1), replacing: true)
    }

    /// Whether fixtures of `size` are within what a verifier makes.
    public static func canVerify(_ size: PixelSize<StoredPixels>) -> Bool {
        size.width <= 65536 && size.height <= 65536 && size.width * size.height <= 100_000_000
    }

    /// The four checks for one mapping result (whose source size must be this
    /// verifier's): size, corner markers, no transparency, coordinates.
    public func check(_ result: CropResult) throws(ImagingError) -> [ExportCheck] {
        precondition(result.sourceSize == sourceSize, "the result is for another source size")
        counter += 1
        let cornersOut = folder + "/out-corners-\(counter).png"
        let coordinatesOut = folder + "/out-coordinates-\(counter).png"
        defer {
            unlink(cornersOut)
            unlink(coordinatesOut)
        }
        _ = try CropExport.cropPNG(
            input: cornersPath, stored: result.stored, orientation: result.orientation,
            output: cornersOut,
            encoder: PNGEncoder(level: 1), replacing: true)
        _ = try CropExport.cropPNG(
            input: coordinatesPath, stored: result.stored, orientation: result.orientation,
            output: coordinatesOut,
            encoder: PNGEncoder(level: 1), replacing: true)
        let corners = try PNGDecoder.decode(path: cornersOut)
        let coordinates = try PNGDecoder.decode(path: coordinatesOut)
        return [
            ExportChecks.size(of: corners, equals: result.rect),
            ExportChecks.cornerMarkers(in: corners, stored: result.stored, sourceSize: sourceSize),
            ExportChecks.noTransparentPixels(in: corners),
            ExportChecks.coordinates(
                in: coordinates, stored: result.stored, orientation: result.orientation),
        ]
    }
}

private func listFolder(_ path: String) throws -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
