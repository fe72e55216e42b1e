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
            /// Counts by name (a JSON object of numbers), in order.
            case counts([Count])
        }

        /// One named count of ``Value/counts(_:)``.
        public struct Count: Sendable, Equatable {
            /// The name ("9", a band level).
            public var name: String
            /// The count.
            public var value: Int

            /// `value` counted under `name`.
            public init(_ name: String, _ value: Int) {
                self.name = name
                self.value = value
            }
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

    /// Reads the file's header and metadata (no pixels); for a GIF, an
    /// APNG or an animated WebP, its timeline (``AnimatedImage/summary``).
    ///
    /// - Throws: ``ImagingError``.
    public static func read(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> ImageFileSummary
    {
        if let animated = try AnimatedImage.open(path: path, limits: limits) {
            return animated.summary
        }
        return ImageFileSummary(try ImageSource.open(path: path, limits: limits))
    }

}

extension ImageFileSummary {
    /// The summary of a file already read: what its format's reader shows,
    /// then its metadata as one model whatever the format: the EXIF tags
    /// and their orientation, where the photo was taken (kept by a crop
    /// unless stripped), the places it names in the picture, the XMP
    /// packets, and what else the file carries
    /// that could show the photo (thumbnails, previews, other images,
    /// bytes after the image).
    public init(_ source: ImageSource) {
        self = source.reader.summary(in: source.input)
        do throws(ImagingError) {
            let metadata = try source.metadata(includingEmbedded: true)
            let exif = metadata.exifTags.map { tags in
                "\(tags.count) tags" + (tags.orientation.map { ", orientation \($0)" } ?? "")
            }
            details += [
                Detail("exifTags", label: "EXIF tags", .text(exif ?? "none")),
                Detail("location", .list(metadata.locations)),
                Detail("places", .list(metadata.places)),
                Detail("xmpPackets", label: "XMP packets", .number(metadata.xmp.count)),
                Detail("embedded", .list(metadata.embedded.map(\.description))),
            ]
        } catch {
            warnings.append("the metadata could not be read: \(error)")
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
        if !info.regionItems.isEmpty {
            details.append(
                .init(
                    "regionItems", label: "region items",
                    .list(info.regionItems.map(HEIFRegions.describe))))
        }
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
        // Each auxiliary image as a companion of the photo as shown, on
        // its own grid, and the other eye of a stereo pair.
        let photo = PixelSize<StoredPixels>(width: info.width, height: info.height)
        // Which crops carry them: a HEIC crop of a HEIC, an AVIF crop of an
        // AVIF; a HEIC's gain map a JPEG crop too.
        func carried(_ role: String) -> String {
            info.codec == .av1
                ? "cut by an AVIF crop, resampled with a resized or straightened one; dropped by other outputs"
                : role.hasSuffix("hdrgainmap")
                    ? "cut by a HEIC crop, carried into a JPEG crop; dropped by other outputs"
                    : "cut by a HEIC crop; dropped by other outputs"
        }
        var companions = info.companions.filter { $0.width > 0 && $0.height > 0 }.map {
            companion in
            CompanionListing.line(
                companion.role, size: PixelSize(width: companion.width, height: companion.height),
                photo: photo,
                crop: companion.showsWholePhoto
                    ? "an image of the whole photo, removed by a crop"
                    : companion.problem.map { "dropped by a crop: \($0)" }
                        ?? carried(companion.role))
        }
        companions += info.stereoEyes.map { eye in
            "the other eye (item \(eye.item)), scale 1 x 1: "
                + (eye.problem.map { "dropped by a crop: \($0)" } ?? carried("eye"))
        }
        if let toneMap = info.toneMap {
            companions.append(
                "an ISO 21496-1 HDR rendition (tmap item \(toneMap.item)) of the photo and its gain map: kept with the gain map"
            )
        }
        if !companions.isEmpty { details.append(.init("companions", .list(companions))) }
        return details
    }
}
