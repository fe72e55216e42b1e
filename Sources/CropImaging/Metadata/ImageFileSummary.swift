import CropGeometry
import CropRecords
import Foundation

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
            /// A value a program reads as typed JSON (a size, a grid, a
            /// colour), shown to people as a phrase: `4032x3024`.
            case typed(JSONValue, text: String)
            /// Things listed (places, companions, transforms), each a
            /// phrase for people and an object for programs.
            case entries([Entry])
        }

        /// The JSON member `info --json` and `crop --json` give a value.
        public var json: JSONValue {
            switch value {
            case .flag(let flag): .bool(flag)
            case .number(let number): .number(number)
            case .list(let words): .array(words.map { .string($0) })
            case .measure(let measure): .number((measure * 100).rounded() / 100)
            case .text(let text): .string(text)
            case .counts(let counts): .object(counts.map { .init($0.name, .number($0.value)) })
            case .typed(let json, _): json
            case .entries(let entries): .array(entries.map(\.json))
            }
        }

        /// The value as the text report shows it; empty when it shows
        /// nothing.
        public var text: String {
            func phrases(_ words: [String]) -> String {
                // Words by spaces ("4:2:0 1x1"); phrases, which hold spaces
                // themselves, by semicolons.
                // An empty list is said: "location none".
                words.isEmpty
                    ? "none"
                    : words.joined(separator: words.contains { $0.contains(" ") } ? "; " : " ")
            }
            switch value {
            case .flag(let flag): return flag ? "yes" : "no"
            case .number(let number): return "\(number)"
            case .list(let words): return phrases(words)
            case .measure(let measure): return String(format: "%.2f", measure)
            case .text(let text), .typed(_, let text): return text
            case .counts(let counts):
                return counts.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
            case .entries(let entries): return phrases(entries.map(\.text))
            }
        }

        /// One thing a ``Value/entries(_:)`` detail lists: the phrase the
        /// text report shows and the object `--json` gives.
        public struct Entry: Sendable, Equatable {
            /// What the text report shows: "EXIF GPS (13 tags)".
            public var text: String
            /// What `--json` gives: `{"source": "EXIF GPS", "tags": 13}`.
            public var json: JSONValue

            /// An entry shown as `text` and given as `json`.
            public init(_ text: String, _ json: JSONValue) {
                self.text = text
                self.json = json
            }
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
            let tags = metadata.exifTags
            let exif = tags.map { tags in
                "\(tags.count) tags" + (tags.orientation.map { ", orientation \($0)" } ?? "")
            }
            details += [
                Detail(
                    "exifTags", label: "EXIF tags",
                    .typed(
                        tags.map { tags in
                            .object([
                                .init("count", .number(tags.count)),
                                .init("orientation", tags.orientation.map { .number($0) } ?? .null),
                            ])
                        } ?? .null, text: exif ?? "none")),
                Detail("location", .entries(metadata.locationEntries)),
                Detail("places", .entries(metadata.placeEntries)),
                Detail("xmpPackets", label: "XMP packets", .number(metadata.xmp.count)),
                Detail(
                    "embedded", .entries(metadata.embedded.map { .init($0.description, $0.json) })),
            ]
        } catch {
            warnings.append("the metadata could not be read: \(error)")
        }
    }
}

extension HEIFFileInfo {
    /// Transforms as listed ("irot 270"), each for `--json` as `{"box":
    /// "irot", "value": 270}`; `clap` has no value.
    static func transformEntries(_ transforms: [String]) -> ImageFileSummary.Detail.Value {
        .entries(
            transforms.map { transform in
                let words = transform.split(separator: " ")
                return .init(
                    transform,
                    .object([
                        .init("box", .string(words.first.map(String.init) ?? "")),
                        .init(
                            "value",
                            words.count > 1 ? Int(words[1]).map { .number($0) } ?? .null : .null),
                    ]))
            })
    }

    /// The structure `info` shows: items, grid, transforms, colour,
    /// metadata and the other images.
    static func details(_ info: HEIFFileInfo) -> [ImageFileSummary.Detail] {
        let layout = info.layout
        var details: [ImageFileSummary.Detail] = [
            .init("brands", .list(info.brands)),
            .init("primaryItem", label: "primary item", .number(info.primaryItem)),
            .init(
                "canvas",
                .typed(
                    .size(width: layout.width, height: layout.height),
                    text: "\(layout.width)x\(layout.height)")),
        ]
        if layout.isGrid {
            details.append(
                .init(
                    "grid",
                    .typed(
                        HEIFWriteReport.Tiles(
                            columns: layout.columns, rows: layout.rows,
                            tileWidth: layout.tileWidth, tileHeight: layout.tileHeight
                        ).json(),
                        text:
                            "\(layout.columns)x\(layout.rows) tiles of \(layout.tileWidth)x\(layout.tileHeight)"
                    )))
        }
        if let clap = info.cleanAperture {
            details.append(
                .init(
                    "cleanAperture", label: "clean aperture",
                    .typed(clap.json, text: "\(clap.width)x\(clap.height) at \(clap.x),\(clap.y)")))
        }
        details.append(.init("transforms", transformEntries(info.transforms)))
        if let nclx = info.nclx {
            details.append(
                .init(
                    "nclx",
                    .typed(
                        .object([
                            .init("primaries", .number(nclx.primaries)),
                            .init("transfer", .number(nclx.transfer)),
                            .init("matrix", .number(nclx.matrix)),
                            .init("fullRange", .bool(nclx.fullRange)),
                        ]),
                        text:
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
                    .entries(info.regionItems.map(HEIFRegions.entry))))
        }
        // An image as {"item", "type", "role", "size"}: the role its auxC
        // names (null for none), the size null where it declares none.
        func describe(_ images: [HEIFOtherImage]) -> ImageFileSummary.Detail.Value {
            .entries(
                images.map { image in
                    let role = image.role.isEmpty ? image.type : image.role
                    return .init(
                        image.width > 0 ? "\(role) \(image.width)x\(image.height)" : role,
                        .object([
                            .init("item", .number(image.item)), .init("type", .string(image.type)),
                            .init("role", image.role.isEmpty ? .null : .string(image.role)),
                            .init(
                                "size",
                                image.width > 0
                                    ? .size(width: image.width, height: image.height) : .null),
                        ]))
                })
        }
        details.append(.init("thumbnails", describe(info.thumbnails)))
        details.append(
            .init("auxiliaryImages", label: "auxiliary images", describe(info.auxiliaryImages)))
        if !info.otherImages.isEmpty {
            details.append(
                .init("otherImages", label: "other images", describe(info.otherImages)))
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
        func outputs(_ role: String) -> [String: CompanionListing.Action] {
            info.codec == .av1
                ? ["avif": .cut]
                : role.hasSuffix("hdrgainmap") ? ["heic": .cut, "jpeg": .carried] : ["heic": .cut]
        }
        var companions = info.companions.filter { $0.width > 0 && $0.height > 0 }.map {
            companion in
            CompanionListing.entry(
                companion.role, kind: CompanionListing.kind(ofRole: companion.role),
                type: companion.role, item: companion.item,
                size: PixelSize(width: companion.width, height: companion.height),
                photo: photo, outputs: outputs(companion.role), resampled: info.codec == .av1,
                problem: companion.showsWholePhoto
                    ? "an image of the whole photo" : companion.problem,
                otherwise: companion.showsWholePhoto ? .removed : .dropped,
                crop: companion.showsWholePhoto
                    ? "an image of the whole photo, removed by a crop"
                    : companion.problem.map { "dropped by a crop: \($0)" }
                        ?? carried(companion.role))
        }
        companions += info.stereoEyes.map { eye in
            CompanionListing.entry(
                "the other eye (item \(eye.item)), scale 1 x 1: "
                    + (eye.problem.map { "dropped by a crop: \($0)" } ?? carried("eye")),
                kind: "otherEye", type: "eye", item: eye.item, outputs: outputs("eye"),
                problem: eye.problem)
        }
        if let toneMap = info.toneMap {
            companions.append(
                CompanionListing.entry(
                    "an ISO 21496-1 HDR rendition (tmap item \(toneMap.item)) of the photo and its gain map: kept with the gain map",
                    kind: "toneMap", type: "tmap", item: toneMap.item,
                    outputs: ["heic": .carried]))
        }
        if !companions.isEmpty { details.append(.init("companions", .entries(companions))) }
        return details
    }
}
