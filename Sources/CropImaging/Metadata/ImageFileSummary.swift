import CropGeometry

/// What `cropkit info` reports, and what `--source-file` takes: a file's
/// format, stored and oriented size, orientation and colour.
public struct ImageFileSummary: Sendable {
    /// One format detail: a camelCase key (the JSON member), a label for the
    /// text report, and a typed value.
    public struct Detail: Sendable {
        /// A detail's value: yes/no, a number, a list or a sentence.
        public enum Value: Sendable, Equatable {
            /// Yes or no (JSON `true`/`false`).
            case flag(Bool)
            /// A whole number.
            case number(Int)
            /// Several words (a JSON array).
            case list([String])
            /// A measure that need not be whole, shown to two decimals.
            case measure(Double)
            /// A sentence.
            case text(String)
        }

        /// The JSON member's name, camelCase (`droppedChunks`).
        public var key: String
        /// The text report's label (`dropped chunks`).
        public var label: String
        /// The value.
        public var value: Value

        /// A detail `key` shown as `label`.
        public init(_ key: String, label: String? = nil, _ value: Value) {
            self.key = key
            self.label = label ?? key
            self.value = value
        }
    }

    /// PNG, JPEG or HEIF.
    public var format: ImageFormat
    /// The size the file's header declares, in its stored pixel grid.
    public var storedSize: PixelSize<StoredPixels>
    /// The EXIF orientation (1 for PNG, whose orientation CropKit does not read).
    public var orientation: EXIFOrientation
    /// The colour type or colour space, by name (`rgba`, `YCbCr`).
    public var colorSpace: String
    /// Bits per sample.
    public var bitDepth: Int
    /// The embedded ICC profile's description (JPEG), or the iCCP profile's
    /// name (PNG).
    public var profile: String?
    /// Format details: frame kind, sampling, scans, interlacing, chunks.
    public var details: [Detail]
    /// What reading the header noticed but stepped over.
    public var warnings: [String]

    /// The size as the person sees it, after the orientation.
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
                    Detail("interlaced", .flag(info.interlaced)),
                    Detail("chunks", .list(info.carriedChunks.map(\.type))),
                    Detail("droppedChunks", label: "dropped chunks", .list(info.droppedChunkTypes)),
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
                details: [Detail("frame", .text(info.frame)), Detail("sampling", .list(sampling))]
                    + (info.scanWork.map { work in
                        [
                            Detail("scans", .number(work.scans)),
                            Detail("frameBlocks", label: "frame blocks", .number(work.frameBlocks)),
                            Detail(
                                "scanPasses", label: "scan passes",
                                .measure(work.passes)),
                        ]
                    } ?? []),
                warnings: info.warnings)
        case .heif(let info):
            self.init(
                format: .heif, storedSize: PixelSize(width: info.width, height: info.height),
                orientation: info.orientation,
                colorSpace: "YCbCr \(info.chroma)\(info.alpha == nil ? "" : " + alpha")",
                bitDepth: info.bitDepth,
                profile: info.iccProfile.map {
                    (ICCProfile.description(of: $0) ?? "(an ICC profile without a description)")
                        + (info.iccOnTiles ? " (on the tiles)" : "")
                }, details: HEIFFileInfo.details(info), warnings: info.warnings)
        }
    }
}

extension HEIFFileInfo {
    /// The structure `info` shows: items, grid, transforms, colour,
    /// metadata and the other images.
    static func details(_ info: HEIFFileInfo) -> [ImageFileSummary.Detail] {
        let layout = info.layout
        var details: [ImageFileSummary.Detail] = [
            .init("brands", .list(info.brands)),
            .init("primaryItem", label: "primary item", .number(info.primaryItem)),
            .init("canvas", .text("\(layout.width)x\(layout.height)")),
        ]
        if layout.isGrid {
            details.append(
                .init(
                    "grid",
                    .text(
                        "\(layout.columns)x\(layout.rows) tiles of \(layout.tileWidth)x\(layout.tileHeight)"
                    )))
        }
        if let clap = info.cleanAperture {
            details.append(
                .init(
                    "cleanAperture", label: "clean aperture",
                    .text("\(clap.width)x\(clap.height) at \(clap.x),\(clap.y)")))
        }
        details.append(.init("transforms", .list(info.transforms)))
        if let nclx = info.nclx {
            details.append(
                .init(
                    "nclx",
                    .text(
                        "primaries \(nclx.primaries), transfer \(nclx.transfer), matrix \(nclx.matrix), \(nclx.fullRange ? "full" : "limited") range"
                    )))
        }
        details.append(.init("exif", .flag(info.exif != nil)))
        if let orientation = info.exifOrientation {
            details.append(
                .init(
                    "exifOrientation", label: "EXIF orientation (not applied)",
                    .number(orientation)))
        }
        details.append(.init("xmp", .flag(info.xmp != nil)))
        func describe(_ images: [HEIFOtherImage]) -> [String] {
            images.map { image in
                let role = image.role.isEmpty ? image.type : image.role
                return image.width > 0 ? "\(role) \(image.width)x\(image.height)" : role
            }
        }
        details.append(.init("thumbnails", .list(describe(info.thumbnails))))
        details.append(
            .init(
                "auxiliaryImages", label: "auxiliary images", .list(describe(info.auxiliaryImages)))
        )
        if !info.otherImages.isEmpty {
            details.append(
                .init("otherImages", label: "other images", .list(describe(info.otherImages))))
        }
        return details
    }
}
