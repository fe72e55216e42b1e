internal import CImagingShims
import CropGeometry
import Foundation

extension CropPlan {
    /// Where the rect's tiles are, and whether each must be encoded again.
    struct HEIFTileCut {
        let columns: ClosedRange<Int>
        let rows: ClosedRange<Int>
        /// The new grid's canvas.
        let width: Int
        let height: Int
        /// The rect on the new canvas.
        let aperture: PixelRect<StoredPixels>
        /// The source tile indices, row by row, each with whether it holds
        /// visible pixels beyond the rect.
        var tiles: [(index: Int, fix: Bool)]

        /// Whether tile `index` of `layout` codes samples beyond the canvas
        /// (the padding of the last column or row), which are judged
        /// before the tile is copied.
        static func reachesBeyondCanvas(_ index: Int, of layout: HEIFLayout) -> Bool {
            let tile = layout.tiles[index]
            return index % layout.columns * layout.tileWidth + tile.width > layout.width
                || index / layout.columns * layout.tileHeight + tile.height > layout.height
        }

        /// Whether the crop may copy no tile, and so be one coded image of
        /// the rect: every tile is an edge tile, or reaches beyond the
        /// canvas and may be judged one.
        func mayCopyNoTile(of layout: HEIFLayout) -> Bool {
            tiles.allSatisfy { $0.fix || Self.reachesBeyondCanvas($0.index, of: layout) }
        }
    }

    /// What the HEIF writer decided when the plan was made: the tiles the
    /// rect touches, and whether the crop is one coded image of the rect
    /// (no tile it touches can be copied).
    struct HEIFWriteChoice: Sendable {
        var cut: HEIFTileCut
        var rectImage: Bool
    }

    /// The tiles of `info` that the stored rect touches.
    static func heifTileCut(_ info: HEIFFileInfo, stored: PixelRect<StoredPixels>) -> HEIFTileCut {
        let layout = info.layout
        let (tw, th) = (layout.tileWidth, layout.tileHeight)
        let rect = PixelRect<StoredPixels>(
            x: stored.x + info.origin.x, y: stored.y + info.origin.y, width: stored.width,
            height: stored.height)
        // What a tile codes is judged against the grid's whole canvas, not
        // the source's own clean aperture: samples a source hides behind its
        // `clap` (a file cropped by another tool) are still coded, and a
        // copied tile would carry them (94.5 % of them equal to the original
        // photo, as found). Samples beyond the canvas, the padding of the
        // last row and column of tiles, are the encoder's (an iPhone's are
        // black); `cropkit leaks` decodes and judges those.
        let visible = PixelRect<StoredPixels>(
            x: 0, y: 0, width: layout.width, height: layout.height)
        let columns = rect.x / tw...(rect.maxX - 1) / tw
        let rows = rect.y / th...(rect.maxY - 1) / th
        var tiles: [(Int, Bool)] = []
        for row in rows {
            for column in columns {
                // The tile's coded pixels on the canvas must all lie in
                // the rect.
                let x0 = max(column * tw, visible.x)
                let x1 = min((column + 1) * tw, visible.maxX)
                let y0 = max(row * th, visible.y)
                let y1 = min((row + 1) * th, visible.maxY)
                let inside = x0 >= rect.x && x1 <= rect.maxX && y0 >= rect.y && y1 <= rect.maxY
                tiles.append((row * layout.columns + column, !inside))
            }
        }
        let left = columns.lowerBound * tw
        let top = rows.lowerBound * th
        return HEIFTileCut(
            columns: columns, rows: rows,
            width: min((columns.upperBound + 1) * tw, layout.width) - left,
            height: min((rows.upperBound + 1) * th, layout.height) - top,
            aperture: PixelRect(
                x: rect.x - left, y: rect.y - top, width: rect.width, height: rect.height),
            tiles: tiles)
    }

    /// The HEIC export: the touched tiles copied into a smaller grid (edge
    /// tiles that would carry pixels beyond the rect encoded again, unless
    /// lossless), a `clap` cutting the rect, the orientation as `irot` and
    /// `imir`, the colour and cleaned metadata.
    func exportHEIF(_ encoder: HEIFEncoder, to sink: some ByteSink) throws(ImagingError)
        -> CropReport
    {
        if let refusal = encoder.refusal(of: source, resampled: false) {
            throw .unsupported(format: source.format, detail: refusal)
        }
        guard let info = (source.header as? any HEIFContainerHeader)?.heif else {
            throw .unsupported(format: source.format, detail: "not a HEIF source")
        }
        guard let choice = decision.choices(as: HEIFWriteChoice.self) else {
            preconditionFailure("a plan's writer decides its tile cut when the plan is made")
        }
        let onCanvas = PixelRect<StoredPixels>(
            x: stored.x + info.origin.x, y: stored.y + info.origin.y, width: stored.width,
            height: stored.height)
        let cut = try Self.checkedCut(
            choice.cut, of: info, shown: onCanvas, fixesEdges: encoder.fixesEdges,
            input: source.input)
        let fixes = encoder.fixesEdges ? cut.tiles.filter(\.fix).count : 0
        if fixes > 0 {
            guard encoder.method == .automatic else {
                throw .unsupported(
                    format: .heif,
                    detail: "the crop is not lossless: \(fixes) edge tile(s) hold pixels beyond it")
            }
            guard HEIFEncoder.canEncodeTiles else {
                throw .unsupported(
                    format: .heif,
                    detail:
                        "\(fixes) edge tile(s) hold pixels beyond the rect and this libheif cannot encode \(info.codec.name) to replace them; use --snap-to-blocks (the rect grown to the tile grid) or write .png"
                )
            }
            guard info.chromaCode > 0 else {
                throw .unsupported(
                    format: .heif, detail: "edge tiles of a monochrome HEIC cannot be encoded again"
                )
            }
        }
        var writer = HEIFFileWriter(codec: info.codec)
        let transforms = HEIFFileWriter.transformBoxes(orientation)
        // A crop that would copy no tile is written as one coded image of
        // the rect: fewer samples to encode than its edge tiles hold (a
        // 300x300 avatar across four 512x512 tiles: a third of the time).
        // The photo's rect image or edge tiles and the companions' cuts are
        // one list of jobs run side by side, the companions first (a large
        // gain map starts while the edge tiles share the other core): run
        // one after the other, each phase left a core idle at its end. (A
        // list, not two nested parallel loops: GCD runs an inner loop
        // serially.)
        let jobs = Self.companionJobs(info, encoder: encoder)
        var single: RectImage?
        var encoded: [Int: EncodedTile] = [:]
        var prepared: [Result<HEIFCompanionCut, ImagingError>] = []
        if jobs.isEmpty {
            single =
                choice.rectImage
                ? try Self.rectImage(
                    info: info, cut: cut, input: source.input, quality: encoder.quality)
                : nil
        } else {
            let fixed =
                choice.rectImage || !encoder.fixesEdges ? [] : cut.tiles.filter(\.fix).map(\.index)
            let primaryJobs = choice.rectImage ? 1 : fixed.count
            let work = try concurrentResults(jobs.count + primaryJobs) {
                n throws(ImagingError) -> HEIFPreparation in
                if n < jobs.count {
                    return .companion(prepare(jobs[n], of: info, encoder: encoder))
                }
                if choice.rectImage {
                    return .rect(
                        try Self.rectImage(
                            info: info, cut: cut, input: source.input, quality: encoder.quality))
                }
                let index = fixed[n - jobs.count]
                let tile = try Self.reencode(
                    info.layout.tiles[index], index: index, info: info, cut: cut,
                    input: source.input, quality: encoder.quality)
                return .tile(index, EncodedTile(configuration: tile.configuration, data: tile.data))
            }
            for result in work {
                switch result {
                case .companion(let cut): prepared.append(cut)
                case .rect(let image): single = image
                case .tile(let index, let tile): encoded[index] = tile
                }
            }
        }
        let image = try Self.writeImage(
            info, cut: cut, single: single, fixesEdges: encoder.fixesEdges,
            quality: encoder.quality, input: source.input, transforms: transforms.boxes,
            hidden: false, encoded: jobs.isEmpty || choice.rectImage ? nil : encoded,
            into: &writer)
        let primary = image.item
        let clap = image.clap
        writer.primary = primary
        // The companions (gain maps, depth, mattes, the other eye) cut by
        // the same rect on their own grids. A file without them gets no
        // item here, and its photo's metadata items come next as ever.
        let companions = writeHEIFCompanions(
            info, prepared: prepared, encoder: encoder, primary: primary,
            transforms: transforms.boxes, into: &writer)
        // The stored pixels are kept, so the EXIF keeps its orientation
        // (not applied in a HEIF) and says the rect's stored size.
        let policy = placing(encoder.metadata)
        let metadata = HEIFMetadata.clean(
            info, size: stored.size, orientation: nil, policy: policy,
            keepsGainMapItems: companions.keptGainMap, carriesRegions: true)
        let warnings = info.warnings + metadata.warnings + companions.warnings
        // The photo's EXIF and XMP, and a copy of each for the other eye of
        // a stereo pair.
        writer.addDescriptions(
            exif: metadata.exif, xmp: metadata.xmp, of: [primary] + companions.describedWithPhoto)
        var entries = metadata.entries
        companions.apply(to: &entries)
        // The region items, mapped into the crop's canvas (``HEIFRegions``).
        let frames = HEIFRegions.Frames(
            sourceCanvas: (info.layout.width, info.layout.height), sourceOrigin: info.origin,
            outputCanvas: (image.codedWidth, image.codedHeight),
            outputOrigin: (clap?.x ?? 0, clap?.y ?? 0))
        for region in info.regionItems {
            let segment = HEIFMetadata.regionSegment(region)
            guard !policy.stripAll else {
                entries.append(
                    MetadataEntry(segment: segment, action: .dropped, reason: "--strip all"))
                continue
            }
            let (data, said, changes) = HEIFRegions.map(
                region, places: policy.places, frames: frames)
            var entry = MetadataEntry(
                segment: segment, action: data == nil ? .dropped : .rewritten, reason: said)
            entry.changes = changes
            entries.append(entry)
            guard let data else { continue }
            let item = writer.addItem(type: "rgan", hidden: true, properties: [])
            writer.setData(item, .bytes(data))
            writer.reference("cdsc", from: item, to: [primary])
        }
        let bytes = try writer.write(to: sink, input: source.input)
        var notes: [String] = []
        if let clap, info.chromaCode == 1 || info.chromaCode == 2,
            clap.x % 2 == 1 || (info.chromaCode == 1 && clap.y % 2 == 1)
        {
            notes.append(
                "the clean aperture starts at an odd \(clap.x % 2 == 1 ? "column" : "row") of subsampled chroma: allowed since MIAF's 2021 amendment (ISO/IEC 23000-22:2019/Amd 2), refused by some older readers"
            )
        }
        return CropReport(
            output: nil, bytes: bytes, size: outputSize, format: format.name,
            warnings: warnings, checksum: nil,
            details: HEIFWriteReport(
                grid: image.gridText,
                copiedTiles: single == nil ? cut.tiles.count - image.reencoded : 0,
                reencodedTiles: image.reencoded,
                copiedBytes: image.copiedBytes,
                cleanAperture: clap, transforms: transforms.names, notes: notes,
                metadata: entries, encodedWholeAt: single == nil ? nil : encoder.quality,
                kind: format.displayName, rectImage: single != nil, tiles: image.tiles))
    }

    /// Where the rect would lie as one coded image
    /// (``rectImage(info:cut:input:quality:)``): the rect on the canvas,
    /// the image's origin on the chroma grid and its size grown to whole
    /// 8x8 blocks; `nil` where that image would be under 64 samples either
    /// way (libheif pads such an image itself) or the tiles do not lie on
    /// the chroma grid: the tiles are encoded then. The writer asks this
    /// when it decides, the export when it gathers the samples.
    static func rectImageGeometry(info: HEIFFileInfo, cut: HEIFTileCut) -> (
        rect: PixelRect<StoredPixels>, x0: Int, y0: Int, width: Int, height: Int
    )? {
        let layout = info.layout
        let (sx, sy) = info.chromaSubsampling
        let rect = PixelRect<StoredPixels>(
            x: cut.aperture.x + cut.columns.lowerBound * layout.tileWidth,
            y: cut.aperture.y + cut.rows.lowerBound * layout.tileHeight,
            width: cut.aperture.width, height: cut.aperture.height)
        let (x0, y0) = (rect.x - rect.x % sx, rect.y - rect.y % sy)
        let width = (rect.maxX - x0 + 7) / 8 * 8
        let height = (rect.maxY - y0 + 7) / 8 * 8
        guard width >= 64, height >= 64, layout.tileWidth % sx == 0, layout.tileHeight % sy == 0
        else { return nil }
        return (rect, x0, y0, width, height)
    }

    /// The rect as one coded image, for a crop that would copy no tile:
    /// the tiles it touches decoded (side by side), the rect's samples
    /// gathered, the coded size grown to whole 8x8 blocks from the chroma
    /// grid (every sample beyond the rect its nearest edge sample, as an
    /// edge tile's), and encoded once; `nil` where it cannot be one
    /// (``rectImageGeometry(info:cut:)``).
    static func rectImage(info: HEIFFileInfo, cut: HEIFTileCut, input: ImageInput, quality: Int)
        throws(ImagingError) -> RectImage?
    {
        let layout = info.layout
        let (sx, sy) = info.chromaSubsampling
        guard let (rect, x0, y0, width, height) = rectImageGeometry(info: info, cut: cut) else {
            return nil
        }
        let indices = cut.tiles.map(\.index)
        let decoded = try concurrentResults(indices.count) { n throws(ImagingError) in
            try decodePlanes(layout.tiles[indices[n]], index: indices[n], info: info, input: input)
        }
        var slot = [Int](repeating: -1, count: layout.tiles.count)
        for (n, index) in indices.enumerated() { slot[index] = n }
        let sample = info.bitDepth > 8 ? 2 : 1
        let dims = info.planeSizes(width: width, height: height)
        var planes: [[UInt8]] = []
        for p in 0..<info.planeCount {
            let (dx, dy) = p == 0 ? (1, 1) : (sx, sy)
            let (w, h) = dims[p]
            let (tw, th) = (layout.tileWidth / dx, layout.tileHeight / dy)
            // The rect's own samples of this plane, on the canvas.
            let kx = rect.x / dx..<(rect.maxX + dx - 1) / dx
            let ky = rect.y / dy..<(rect.maxY + dy - 1) / dy
            let columns = (0..<w).map { min(max(x0 / dx + $0, kx.lowerBound), kx.upperBound - 1) }
            // Each touched tile's plane and its width, looked up once.
            var sources: [[UInt8]] = []
            var widths: [Int] = []
            for (n, index) in indices.enumerated() {
                sources.append(decoded[n][p])
                let coded = layout.tiles[index]
                widths.append(info.planeSizes(width: coded.width, height: coded.height)[p].0)
            }
            var out = [UInt8](repeating: 0, count: w * h * sample)
            for y in 0..<h {
                let cy = min(max(y0 / dy + y, ky.lowerBound), ky.upperBound - 1)
                let tileRow = cy / th
                for x in 0..<w {
                    let cx = columns[x]
                    let n = slot[tileRow * layout.columns + cx / tw]
                    guard n >= 0 else {
                        throw .corrupt(
                            format: .heif, detail: "the rect reaches a tile it does not touch")
                    }
                    let from = ((cy - tileRow * th) * widths[n] + cx % tw) * sample
                    for b in 0..<sample { out[(y * w + x) * sample + b] = sources[n][from + b] }
                }
            }
            planes.append(out)
        }
        let coded = try encodePlanes(
            planes, width: width, height: height, info: info, quality: quality)
        // The colour: the image's own boxes, then any of the tile's of a
        // kind they lack (an nclx beside an ICC profile).
        let first = layout.tiles[indices[0]]
        var colour = layout.isGrid ? info.primaryBoxes : []
        // A box's type, and a `colr` box's colour type after it.
        func kind(_ box: [UInt8]) -> [UInt8] {
            guard box.count >= 8 else { return [] }
            let type = Array(box[4..<8])
            return type == Array("colr".utf8) && box.count >= 12 ? Array(box[4..<12]) : type
        }
        for box in first.colourBoxes + (first.pixi.map { [$0] } ?? [])
        where !colour.contains(where: { kind($0) == kind(box) }) {
            colour.append(box)
        }
        return RectImage(
            configuration: coded.configuration, data: coded.data, width: width, height: height,
            aperture: PixelRect(
                x: rect.x - x0, y: rect.y - y0, width: rect.width, height: rect.height),
            colourBoxes: colour)
    }

    /// A tile decoded to its YCbCr planes, every sample beyond the rect
    /// replaced by the rect's nearest edge sample, and encoded again: its
    /// new `hvcC` and coded bytes.
    static func reencode(
        _ tile: HEIFCodedImage, index: Int, info: HEIFFileInfo, cut: HEIFTileCut,
        input: ImageInput, quality: Int
    ) throws(ImagingError) -> (configuration: [UInt8], data: [UInt8]) {
        let layout = info.layout
        let sample = info.bitDepth > 8 ? 2 : 1
        let (sx, sy) = info.chromaSubsampling
        let dims = info.planeSizes(width: tile.width, height: tile.height)
        // The rect on this tile.
        let left = index % layout.columns * layout.tileWidth
        let top = index / layout.columns * layout.tileHeight
        let rectLeft = cut.aperture.x + cut.columns.lowerBound * layout.tileWidth
        let rectTop = cut.aperture.y + cut.rows.lowerBound * layout.tileHeight
        let keepX = max(rectLeft - left, 0)..<min(rectLeft + cut.aperture.width - left, tile.width)
        let keepY = max(rectTop - top, 0)..<min(rectTop + cut.aperture.height - top, tile.height)
        var planes = try decodePlanes(tile, index: index, info: info, input: input)
        // Replicate the kept samples over the rest, plane by plane.
        for p in 0..<info.planeCount {
            let (w, h) = dims[p]
            let (dx, dy) = p == 0 ? (1, 1) : (sx, sy)
            let kx = keepX.lowerBound / dx..<(keepX.upperBound + dx - 1) / dx
            let ky = keepY.lowerBound / dy..<(keepY.upperBound + dy - 1) / dy
            let row = w * sample
            var out = planes[p]
            for y in 0..<h {
                let from = min(max(y, ky.lowerBound), ky.upperBound - 1)
                for x in 0..<w {
                    let fx = min(max(x, kx.lowerBound), kx.upperBound - 1)
                    for b in 0..<sample {
                        out[y * row + x * sample + b] = planes[p][from * row + fx * sample + b]
                    }
                }
            }
            planes[p] = out
        }
        let encoded = try encodePlanes(
            planes, width: tile.width, height: tile.height, info: info, quality: quality)
        return (sameAV1Configuration(encoded.configuration, as: tile, info: info), encoded.data)
    }

    /// An AV1 tile's new `av1C`, or the source tile's where the two differ
    /// only in `chroma_sample_position`, which the sequence header codes
    /// for 4:2:0 alone: libavif refuses a grid whose tiles' `av1C` differ,
    /// and outside 4:2:0 that field says nothing of the bitstream.
    static func sameAV1Configuration(
        _ configuration: [UInt8], as tile: HEIFCodedImage, info: HEIFFileInfo
    ) -> [UInt8] {
        let old = tile.configuration
        guard info.codec == .av1, info.chromaCode != 1, configuration.count == old.count,
            configuration.count >= 12
        else { return configuration }
        // The box header (8 bytes), then the record: byte 2 ends with the
        // two bits of chroma_sample_position.
        for index in configuration.indices where configuration[index] != old[index] {
            guard index == 10, configuration[index] & 0xFC == old[index] & 0xFC else {
                return configuration
            }
        }
        return old
    }

    /// Tile `index` of `info` decoded to its three planes (luma, then the
    /// two chroma planes at their subsampled size), samples of 1 or 2 bytes.
    static func decodePlanes(
        _ tile: HEIFCodedImage, index: Int, info: HEIFFileInfo, input: ImageInput
    ) throws(ImagingError) -> [[UInt8]] {
        let sample = info.bitDepth > 8 ? 2 : 1
        let dims = info.planeSizes(width: tile.width, height: tile.height)
        let monochrome = info.chromaCode == 0
        var y = [UInt8](repeating: 0, count: dims[0].0 * dims[0].1 * sample)
        var cb = [UInt8](repeating: 0, count: monochrome ? 0 : dims[1].0 * dims[1].1 * sample)
        var cr = cb
        var status: Int32 = 0
        var message = ""
        var request = ck_heif_decode_request()
        request.bit_depth = UInt32(info.bitDepth)
        request.planar_chroma = UInt32(info.chromaCode)
        request.planar_monochrome = monochrome ? 1 : 0
        request.planar_rgb = info.nclx?.matrix == 0 && info.chromaCode == 3 ? 1 : 0
        request.plane_width = (UInt32(dims[0].0), UInt32(dims[1].0), UInt32(dims[2].0))
        request.plane_height = (UInt32(dims[0].1), UInt32(dims[1].1), UInt32(dims[2].1))
        try y.withUnsafeMutableBufferPointer { y throws(ImagingError) in
            try cb.withUnsafeMutableBufferPointer { cb throws(ImagingError) in
                try cr.withUnsafeMutableBufferPointer { cr throws(ImagingError) in
                    request.planes = (y.baseAddress, cb.baseAddress, cr.baseAddress)
                    // The touched tiles decode side by side, one a core.
                    status = try tile.decode(&request, input: input, threads: 1)
                    message = cMessage(request.message)
                }
            }
        }
        guard status == CK_STATUS_OK else {
            if status == CK_STATUS_OUT_OF_MEMORY {
                throw .outOfMemory(detail: "decoding tile \(index): \(message)")
            }
            throw .corrupt(format: .heif, detail: "tile \(index) (item \(tile.item)): \(message)")
        }
        return monochrome ? [y] : [y, cb, cr]
    }

    /// Three planes of a `width`×`height` image encoded by libheif's HEVC
    /// encoder at `quality` with ``HEIFEncoder/x265Parameters``: the coded
    /// image's `hvcC` and bytes.
    static func encodePlanes(
        _ planes: [[UInt8]], width: Int, height: Int, info: HEIFFileInfo, quality: Int
    ) throws(ImagingError) -> (configuration: [UInt8], data: [UInt8]) {
        let dims = info.planeSizes(width: width, height: height)
        var status: Int32 = 0
        var message = ""
        var encode = ck_heif_encode_request()
        encode.width = UInt32(width)
        encode.height = UInt32(height)
        encode.bit_depth = UInt32(info.bitDepth)
        encode.chroma = Int32(info.chromaCode)
        encode.compression = info.codec == .av1 ? 4 : 1
        if info.codec == .av1, let nclx = info.nclx {
            // AV1 says its colour in the sequence header too: the tiles of
            // a grid must agree (libavif refuses a grid whose tiles differ).
            encode.has_nclx = 1
            encode.nclx_primaries = UInt32(clamping: nclx.primaries)
            encode.nclx_transfer = UInt32(clamping: nclx.transfer)
            encode.nclx_matrix = UInt32(clamping: nclx.matrix)
            encode.nclx_full_range = nclx.fullRange ? 1 : 0
        }
        encode.quality = UInt32(quality)
        encode.plane_width = (UInt32(dims[0].0), UInt32(dims[1].0), UInt32(dims[2].0))
        encode.plane_height = (UInt32(dims[0].1), UInt32(dims[1].1), UInt32(dims[2].1))
        // The encoder's parameters as C strings, name and value in turn.
        let encoded: [UInt8]? = try HEIFEncoder.withParameterStrings(
            for: info.codec, encoding: "an edge tile"
        ) { parameters, count in
            encode.parameters = parameters
            encode.parameter_count = count
            // A monochrome image has its luma plane alone.
            let chroma = planes.count == 3 ? (planes[1], planes[2]) : ([], [])
            return planes[0].withUnsafeBufferPointer { y in
                chroma.0.withUnsafeBufferPointer { cb in
                    chroma.1.withUnsafeBufferPointer { cr in
                        encode.planes = (y.baseAddress, cb.baseAddress, cr.baseAddress)
                        status = ck_heif_encode_planes(&encode)
                        message = cMessage(encode.message)
                        guard status == CK_STATUS_OK, let file = encode.file else { return nil }
                        defer { ck_free(file) }
                        return Array(UnsafeBufferPointer(start: file, count: encode.file_size))
                    }
                }
            }
        }
        guard let encoded else {
            if status == CK_STATUS_OUT_OF_MEMORY {
                throw .outOfMemory(detail: "encoding an edge tile: \(message)")
            }
            throw .encodeFailed(
                format: info.codec.brand, detail: "an edge tile could not be encoded: \(message)")
        }
        // The encoder's one-image HEIF, read back by the same parser.
        let result = try HEIFFileInfo.read(
            ImageInput(bytes: encoded, name: "re-encoded tile"), limits: .standard)
        guard !result.layout.isGrid, result.cleanAperture == nil,
            let coded = result.layout.tiles.first, coded.width == width,
            coded.height == height
        else {
            throw .unsupported(
                format: .heif,
                detail:
                    "the encoder wrote a \(result.layout.width)x\(result.layout.height) image for a \(width)x\(height) tile"
            )
        }
        var data: [UInt8] = []
        for extent in coded.extents { data += encoded[extent] }
        return (coded.configuration, data)
    }
}

extension HEIFFileInfo {
    /// How many luma samples a chroma sample covers across and down.
    var chromaSubsampling: (x: Int, y: Int) {
        chromaCode == 1 ? (2, 2) : chromaCode == 2 ? (2, 1) : (1, 1)
    }

    /// How many planes its samples lie in: 1 (monochrome) or 3.
    var planeCount: Int { chromaCode == 0 ? 1 : 3 }

    /// The sizes of the luma and two chroma planes of a `width`×`height`
    /// image of this file's chroma format.
    func planeSizes(width: Int, height: Int) -> [(Int, Int)] {
        let (sx, sy) = chromaSubsampling
        let chroma = ((width + sx - 1) / sx, (height + sy - 1) / sy)
        return [(width, height), chroma, chroma]
    }
}

/// The jobs of a HEIC crop that run side by side: the photo's rect image
/// or edge tiles encoded, and its companions cut.
enum HEIFPreparation: Sendable {
    /// The photo's rect as one image.
    case rect(RectImage?)
    /// One of the photo's edge tiles encoded again.
    case tile(Int, CropPlan.EncodedTile)
    /// A companion's cut, or why it cannot be kept.
    case companion(Result<CropPlan.HEIFCompanionCut, ImagingError>)
}

/// A crop's rect as one coded image: its `hvcC` and bytes, its coded size,
/// where the rect lies in it, and its colour boxes.
struct RectImage: Sendable {
    var configuration: [UInt8]
    var data: [UInt8]
    var width: Int
    var height: Int
    var aperture: PixelRect<StoredPixels>
    var colourBoxes: [[UInt8]]
}
