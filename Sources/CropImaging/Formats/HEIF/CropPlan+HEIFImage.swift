import CropGeometry

extension CropPlan {
    /// An image written into a HEIF crop (the primary, a companion, the
    /// other eye): its item and how it was made.
    struct WrittenHEIFImage {
        /// Its item ID.
        var item: Int
        /// Tiles (or one image) encoded again.
        var reencoded = 0
        /// The coded bytes of the tiles copied.
        var copiedBytes = 0
        /// The grid written, in words.
        var gridText = ""
        /// The grid written, as numbers.
        var tiles: HEIFWriteReport.Tiles?
        /// The clean aperture cutting the rect, if one does.
        var clap: PixelRect<StoredPixels>?
        /// Its coded size (the grid's canvas, or the one image's).
        var codedWidth = 0
        var codedHeight = 0
    }

    /// `cut` with every tile checked before it is copied, and each tile
    /// inside the rect that codes samples beyond the canvas judged: one
    /// whose padding is not an encoder's is encoded again like an edge
    /// tile. `shown` is the rect on `info`'s canvas. The primary, its
    /// companions and the other eye are all checked here.
    static func checkedCut(
        _ cut: HEIFTileCut, of info: HEIFFileInfo, shown: PixelRect<StoredPixels>,
        fixesEdges: Bool, input: ImageInput
    ) throws(ImagingError) -> HEIFTileCut {
        var cut = cut
        // A tile is copied only when what it codes agrees with its `ispe`,
        // its `hvcC` header and the grid: a copy of a malformed tile makes a
        // file nothing can decode.
        for (index, _) in cut.tiles {
            let tile = info.layout.tiles[index]
            let problem: String?
            switch info.codec == .hevc
                ? HEVCSequenceInfo.read(hvcC: tile.configuration)
                : .success(
                    // An AV1 tile's configuration is what the parser read.
                    HEVCSequenceInfo(
                        chromaFormat: tile.chromaCode, width: tile.width, height: tile.height,
                        bitDepth: tile.bitDepth))
            {
            case .failure(let failure): problem = failure.text
            case .success(let sequence):
                if sequence.width != tile.width || sequence.height != tile.height {
                    problem =
                        "it codes \(sequence.width)x\(sequence.height) pixels but its 'ispe' says \(tile.width)x\(tile.height)"
                } else if sequence.chromaFormat != tile.chromaCode
                    || sequence.chromaFormat != info.chromaCode
                {
                    problem =
                        "its chroma format (\(sequence.chromaFormat)) is not the image's (\(info.chromaCode))"
                } else if sequence.bitDepth != tile.bitDepth || sequence.bitDepth != info.bitDepth {
                    problem =
                        "its bit depth (\(sequence.bitDepth)) is not the image's (\(info.bitDepth))"
                } else if info.layout.isGrid,
                    tile.width != info.layout.tileWidth || tile.height != info.layout.tileHeight
                {
                    problem =
                        "it is \(tile.width)x\(tile.height) in a grid of \(info.layout.tileWidth)x\(info.layout.tileHeight) tiles"
                } else {
                    problem = nil
                }
            }
            if let problem {
                throw .corrupt(
                    format: .heif,
                    detail:
                        "tile \(index) (item \(tile.item)) cannot be carried into a HEIC crop: \(problem)"
                )
            }
        }
        // A tile inside the rect on the canvas may still code samples
        // beyond the canvas: the padding of the last column and row of
        // tiles. An encoder's padding (an iPhone's is black, libheif repeats
        // the edge) is copied; anything else (real pixels, or what a damaged
        // tile decodes to) is what `cropkit leaks` calls hidden pixels, so
        // such a tile is encoded again like an edge tile. Only tiles that
        // reach beyond the canvas are decoded for this.
        if fixesEdges {
            let layout = info.layout
            let padded = cut.tiles.indices.filter { n in
                !cut.tiles[n].fix && HEIFTileCut.reachesBeyondCanvas(cut.tiles[n].index, of: layout)
            }
            let findings = try LeakCheck.hiddenPixelFindings(
                tiles: padded.map { cut.tiles[$0].index }, of: info, shown: shown, input: input)
            for (n, finding) in zip(padded, findings) where finding != nil {
                cut.tiles[n].fix = true
            }
        }
        return cut
    }

    /// Writes one image of a HEIF crop into `writer`: `single` (the rect
    /// as one coded image) when given, else the tiles of `cut`, copied, or
    /// encoded again where they are edge tiles; a grid of them when
    /// `info`'s image is one; a `clap` cutting the rect; `transforms`; then
    /// `extra` properties (a companion's `auxC`). Everything that can fail
    /// is done before the first item is added.
    /// The edge tiles of `cut` encoded again (side by side, one a core),
    /// by tile index: the part of writing an image that can fail and takes
    /// time, which a companion does before any item is written.
    static func encodeEdgeTiles(
        _ info: HEIFFileInfo, cut: HEIFTileCut, fixesEdges: Bool, quality: Int,
        input: ImageInput
    ) throws(ImagingError) -> [Int: EncodedTile] {
        let fixed = fixesEdges ? cut.tiles.filter(\.fix).map(\.index) : []
        let encoded = try concurrentResults(fixed.count) { n throws(ImagingError) in
            let tile = try Self.reencode(
                info.layout.tiles[fixed[n]], index: fixed[n], info: info, cut: cut,
                input: input, quality: quality)
            return EncodedTile(configuration: tile.configuration, data: tile.data)
        }
        return Dictionary(uniqueKeysWithValues: zip(fixed, encoded))
    }

    /// A tile encoded again: its decoder configuration and coded bytes.
    struct EncodedTile: Sendable {
        var configuration: [UInt8]
        var data: [UInt8]
    }

    static func writeImage(
        _ info: HEIFFileInfo, cut: HEIFTileCut, single: RectImage?, fixesEdges: Bool,
        quality: Int, input: ImageInput, transforms: [[UInt8]], hidden: Bool,
        extra: [([UInt8], Bool)] = [], encoded: [Int: EncodedTile]? = nil,
        into writer: inout HEIFFileWriter
    ) throws(ImagingError) -> WrittenHEIFImage {
        if let single {
            var boxes: [([UInt8], Bool)] = [
                (single.configuration, true),
                (HEIFFileWriter.ispe(width: single.width, height: single.height), false),
            ]
            boxes += single.colourBoxes.map { ($0, false) }
            let clap =
                single.aperture == PixelRect(x: 0, y: 0, width: single.width, height: single.height)
                ? nil : single.aperture
            if let clap {
                boxes.append(
                    (HEIFFileWriter.clap(clap, width: single.width, height: single.height), true))
            }
            boxes += transforms.map { ($0, true) }
            boxes += extra
            let item = writer.addItem(type: info.codec.itemType, hidden: hidden, properties: boxes)
            writer.setData(item, .bytes(single.data))
            return WrittenHEIFImage(
                item: item, reencoded: 1,
                gridText:
                    "one image of \(single.width)x\(single.height) (no tile to copy: the rect encoded again)",
                tiles: .init(
                    columns: 1, rows: 1, tileWidth: single.width, tileHeight: single.height),
                clap: clap, codedWidth: single.width, codedHeight: single.height)
        }
        // The tiles: copied, or fixed and encoded again.
        var written = WrittenHEIFImage(item: 0, codedWidth: cut.width, codedHeight: cut.height)
        var tileItems: [Int] = []
        var tileData: [HEIFFileWriter.Data] = []
        // The edge tiles are encoded again side by side, one a core.
        var reencodedTiles: [Int: EncodedTile]
        if let encoded {
            reencodedTiles = encoded
        } else {
            reencodedTiles = try encodeEdgeTiles(
                info, cut: cut, fixesEdges: fixesEdges, quality: quality, input: input)
        }
        for (index, _) in cut.tiles {
            let tile = info.layout.tiles[index]
            var boxes: [[UInt8]]
            let data: HEIFFileWriter.Data
            if let fresh = reencodedTiles[index] {
                boxes = [fresh.configuration]
                data = .bytes(fresh.data)
                written.reencoded += 1
            } else {
                boxes = [tile.configuration]
                data = .extents(tile.extents)
                written.copiedBytes += tile.byteCount
            }
            boxes.append(HEIFFileWriter.ispe(width: tile.width, height: tile.height))
            boxes += tile.colourBoxes
            if let pixi = tile.pixi { boxes.append(pixi) }
            tileItems.append(
                writer.addItem(
                    type: info.codec.itemType, hidden: info.layout.isGrid || hidden,
                    properties: boxes.enumerated().map { ($1, $0 == 0) }))
            tileData.append(data)
        }
        // The image: a grid of them, or the one coded image.
        var imageBoxes: [([UInt8], Bool)] = []
        let clap =
            cut.aperture == PixelRect(x: 0, y: 0, width: cut.width, height: cut.height)
            ? nil : cut.aperture
        written.clap = clap
        if info.layout.isGrid {
            imageBoxes += info.primaryBoxes.map { ($0, false) }
            if let clap {
                imageBoxes.append(
                    (HEIFFileWriter.clap(clap, width: cut.width, height: cut.height), true))
            }
            imageBoxes += transforms.map { ($0, true) }
            imageBoxes += extra
            written.item = writer.addGrid(
                of: tileItems, rows: cut.rows.count, columns: cut.columns.count,
                width: cut.width, height: cut.height, hidden: hidden, properties: imageBoxes)
            for (item, data) in zip(tileItems, tileData) { writer.setData(item, data) }
        } else {
            written.item = tileItems[0]
            writer.setData(written.item, tileData[0])
            if let clap {
                writer.addProperty(
                    to: written.item,
                    HEIFFileWriter.clap(clap, width: cut.width, height: cut.height),
                    essential: true)
            }
            for box in transforms {
                writer.addProperty(to: written.item, box, essential: true)
            }
            for (box, essential) in extra {
                writer.addProperty(to: written.item, box, essential: essential)
            }
        }
        written.gridText =
            "\(cut.columns.count)x\(cut.rows.count) of \(info.layout.tileWidth)x\(info.layout.tileHeight)"
        written.tiles = .init(
            columns: cut.columns.count, rows: cut.rows.count, tileWidth: info.layout.tileWidth,
            tileHeight: info.layout.tileHeight)
        return written
    }
}
