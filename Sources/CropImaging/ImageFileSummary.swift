import CropGeometry

/// What `cropkit info` reports, and what `--source-file` takes: a file's
/// format, stored and oriented size, orientation and colour.
public struct ImageFileSummary: Sendable {
    public var format: ImageFormat
    public var storedSize: PixelSize<StoredPixels>
    public var orientation: EXIFOrientation
    public var colorSpace: String
    public var bitDepth: Int
    /// The embedded ICC profile's description (JPEG), or the iCCP profile's
    /// name (PNG).
    public var profile: String?
    /// Format details: frame kind, sampling, interlacing, chunks.
    public var details: [(String, String)]
    public var warnings: [String]

    public var orientedSize: PixelSize<ImagePixels> { orientation.orientedSize(storedSize) }

    /// Reads the file's header and metadata (no pixels).
    ///
    /// - Throws: ``ImagingError``.
    public static func read(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> ImageFileSummary
    {
        ImageFileSummary(try ImageSource.open(path: path, limits: limits))
    }

}

extension ImageFileSummary {
    /// The summary of a file already read.
    public init(_ source: ImageSource) {
        switch source.header {
        case .png(let info):
            // The iCCP profile's own description, else the chunk's name.
            let profile = info.carriedChunks.first(where: { $0.type == "iCCP" }).map { chunk in
                ICCProfile.profile(fromICCP: chunk).flatMap(ICCProfile.description(of:))
                    ?? String(decoding: chunk.data.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            self.init(
                format: .png, storedSize: PixelSize(width: info.width, height: info.height),
                orientation: .up,
                colorSpace: info.colorType.name, bitDepth: info.bitDepth, profile: profile,
                details: [
                    ("interlaced", info.interlaced ? "yes" : "no"),
                    ("chunks", info.carriedChunks.map(\.type).joined(separator: " ")),
                    ("dropped chunks", info.droppedChunkTypes.joined(separator: " ")),
                ],
                warnings: info.warnings)
        case .jpeg(let info):
            let sampling = zip(info.horizontalSampling, info.verticalSampling).map { "\($0)x\($1)" }
            self.init(
                format: .jpeg, storedSize: PixelSize(width: info.width, height: info.height),
                orientation: info.orientation, colorSpace: info.colorSpace, bitDepth: 8,
                profile: info.iccProfile.map {
                    ICCProfile.description(of: $0) ?? "(an ICC profile without a description)"
                },
                details: [("frame", info.frame), ("sampling", sampling.joined(separator: " "))]
                    + (info.scanWork.map { work in
                        [
                            (
                                "scans",
                                "\(work.scans), visiting the frame's \(work.frameBlocks) blocks "
                                    + String(format: "%.2f", work.passes) + " times over"
                            )
                        ]
                    } ?? []),
                warnings: info.warnings)
        }
    }
}
