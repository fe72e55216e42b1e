internal import CImagingShims
import CropGeometry
import CropRecords

/// How a HEIC crop was made, for the report.
public struct HEIFWriteReport: Hashable, Sendable {
    /// The grid written: columns × rows of tiles of this size.
    public var grid: String
    /// Tiles copied byte for byte.
    public var copiedTiles: Int
    /// Edge tiles encoded again, the pixels beyond the rect replaced.
    public var reencodedTiles: Int
    /// The coded bytes of the copied tiles: the source's own share of the
    /// output.
    public var copiedBytes: Int
    /// The clean aperture on the new grid, if one cuts it.
    public var cleanAperture: PixelRect<StoredPixels>?
    /// The transforms written after it, e.g. `["irot 270"]`.
    public var transforms: [String]
    /// Notes on conformance (an odd clean-aperture origin with subsampled
    /// chroma, which MIAF before its 2021 amendment did not allow).
    public var notes: [String]
    /// What became of each piece of the source's metadata and each of its
    /// other images.
    public var metadata: [MetadataEntry]
    /// The quality the whole crop was encoded at, when it was encoded from
    /// pixels (an AVIF of another source, or turned, resized or with
    /// alpha) instead of copied tiles; `nil` for a tile copy.
    public var encodedWholeAt: Int? = nil
    /// The format's name in words: "HEIC", "AVIF".
    public var kind: String = "HEIC"
    /// Whether no tile the rect touches could be copied, and the rect was
    /// decoded and encoded as one image at ``encodedWholeAt``.
    public var rectImage: Bool = false
    /// ``grid`` as numbers: one image is one tile of its own size.
    public var tiles: Tiles? = nil

    /// A grid written: columns × rows of tiles of one size.
    public struct Tiles: Hashable, Sendable {
        /// Tiles across.
        public var columns: Int
        /// Tiles down.
        public var rows: Int
        /// A tile's width.
        public var tileWidth: Int
        /// A tile's height.
        public var tileHeight: Int

        /// `{columns, rows, tileWidth, tileHeight}`, as `info --json` and
        /// `crop --json` give a grid, and `summary` after them when given.
        public func json(summary: String? = nil) -> JSONValue {
            .object(
                [
                    .init("columns", .number(columns)), .init("rows", .number(rows)),
                    .init("tileWidth", .number(tileWidth)),
                    .init("tileHeight", .number(tileHeight)),
                ] + (summary.map { [.init("summary", .string($0))] } ?? []))
        }

        /// `columns` × `rows` tiles of `tileWidth` × `tileHeight`.
        public init(columns: Int, rows: Int, tileWidth: Int, tileHeight: Int) {
            self.columns = columns
            self.rows = rows
            self.tileWidth = tileWidth
            self.tileHeight = tileHeight
        }
    }
}

extension HEIFWriteReport: WriteReport {
    /// "HEIC (lossless: 4 tile(s) copied)", or encoded from pixels.
    public var summary: String {
        if let quality = encodedWholeAt {
            return rectImage
                ? "\(kind) (no tile lies inside the rect: the rect encoded as one image at quality \(quality))"
                : "\(kind) (encoded from pixels at quality \(quality))"
        }
        if copiedTiles == 0 {
            return
                "\(kind) (no tile lies inside the rect: its \(reencodedTiles) tile(s) encoded again so no pixel beyond it stays in them)"
        }
        return reencodedTiles == 0
            ? "\(kind) (lossless: \(copiedTiles) tile(s) copied)"
            : "\(kind) (\(copiedTiles) tile(s) copied, \(reencodedTiles) edge tile(s) encoded again so no pixel beyond the rect stays in them)"
    }

    /// The method, the quality of what was encoded, the grid, the tiles
    /// copied and encoded again, the clean aperture, the transforms, notes.
    public var facts: [ImageFileSummary.Detail] {
        let method =
            encodedWholeAt != nil || copiedTiles == 0
            ? "reencoded" : reencodedTiles == 0 ? "lossless" : "lossless-edges-reencoded"
        return [.init("method", .text(method))]
            + (encodedWholeAt.map { [.init("quality", .number($0))] } ?? [])
            + [
                .init(
                    "grid",
                    tiles.map { .typed($0.json(summary: grid), text: grid) } ?? .text(grid)),
                .init("copiedTiles", .number(copiedTiles)),
                .init("reencodedTiles", .number(reencodedTiles)),
                .init("copiedBytes", .number(copiedBytes)),
            ]
            + (cleanAperture.map { [.init("cleanAperture", .typed($0.json, text: "\($0)"))] } ?? [])
            + [
                .init("transforms", HEIFFileInfo.transformEntries(transforms)),
                .init("notes", .list(notes)),
            ]
    }
}
