import CropGeometry

extension HEIFFileInfo {
    /// The file seen as if `layout` were its primary image: a companion or
    /// the other eye, so that the primary's tile cut, checks and encoders
    /// cut it on its own grid. Its colour is its own (`boxes`, `nclx`).
    func image(
        _ layout: HEIFLayout, clap: PixelRect<StoredPixels>?, boxes: [[UInt8]],
        nclx: HEIFColourDescription?
    ) -> HEIFFileInfo {
        var info = self
        info.layout = layout
        info.cleanAperture = clap
        info.alpha = nil
        info.bitDepth = layout.tiles[0].bitDepth
        info.chromaCode = layout.tiles[0].chromaCode
        info.chroma = ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][info.chromaCode]
        info.primaryBoxes = boxes
        info.nclx = nclx
        info.iccProfile = nil
        return info
    }
}

extension CropPlan {
    /// What writing a HEIF crop's companions did: the metadata entries that
    /// replace the parser's "dropped" ones, warnings, and the images the
    /// photo's EXIF and XMP also describe (the `tmap` rendition).
    struct HEIFCompanionsWritten {
        /// Entries by the source item they describe.
        var entries: [Int: MetadataEntry] = [:]
        /// Entries of the companions' own metadata, after the others.
        var extra: [MetadataEntry] = []
        /// Why a companion was dropped, where it was asked to be kept.
        var warnings: [String] = []
        /// New images the photo's own EXIF and XMP describe too (each gets
        /// its own copy): the other eye.
        var describedWithPhoto: [Int] = []
        /// Whether an HDR gain map was cut and kept: the photo's XMP then
        /// keeps its gain-map description.
        var keptGainMap = false

        /// `entries` with each companion's line in place of the parser's.
        func apply(to list: inout [MetadataEntry]) {
            for item in entries.keys.sorted() {
                guard let entry = entries[item] else { continue }
                if let at = list.firstIndex(where: {
                    $0.segment.hasPrefix("auxiliary item \(item) ")
                        || $0.segment.hasSuffix(" item \(item)")
                }) {
                    list[at] = entry
                } else {
                    list.append(entry)
                }
            }
            list += extra
        }
    }

    /// The photo's stored rect its companions are cut for, and the stored
    /// size the crop is written at: the crop's own, or for a resized crop
    /// (a variant, an avatar: no straightening, inside the photo) the rect
    /// it shows and its output size, both turned to stored space, so that
    /// each companion keeps its scale against the output
    /// (``CompanionGrid/cut(_:resizedTo:)``). `nil` for a straightened crop,
    /// or one reaching beyond the photo, whose companions are sampled at
    /// the crop's own positions (``straightenedCompanion(_:crop:companion:quality:)``).
    var companionCrop: (rect: PixelRect<StoredPixels>, output: PixelSize<StoredPixels>)? {
        guard let resampling else { return (stored, stored.size) }
        let crop = resampling.crop
        guard crop.frame.angle == 0, crop.frame.isInside(crop.rect) else { return nil }
        let shown = PixelRect<ImagePixels>(
            x: crop.rect.x, y: crop.rect.y, width: crop.rect.width, height: crop.rect.height)
        let out = crop.outputSize
        return (
            orientation.storedRect(shown, storedSize: source.storedSize),
            orientation.swapsAxes
                ? PixelSize(width: out.height, height: out.width)
                : PixelSize(width: out.width, height: out.height)
        )
    }

    /// Whether a crop with `encoder` keeps companions at all.
    static func keepsCompanions(_ encoder: HEIFEncoder) -> Bool {
        encoder.metadata.companions == .keep && !encoder.metadata.stripAll
    }

    /// What a HEIC crop cuts beside its photo: each companion it keeps,
    /// then each other eye, in the order ``writeHEIFCompanions`` takes
    /// their cuts.
    enum CompanionJob: Sendable {
        case companion(HEIFCompanion)
        case eye(HEIFStereoEye)
    }

    /// The companions and eyes a crop with `encoder` cuts.
    static func companionJobs(_ info: HEIFFileInfo, encoder: HEIFEncoder) -> [CompanionJob] {
        guard keepsCompanions(encoder) else { return [] }
        return info.companions.filter { !$0.showsWholePhoto }.map { .companion($0) }
            + info.stereoEyes.map { .eye($0) }
    }

    /// One companion or eye cut (the part of writing it that takes time),
    /// or why it cannot be kept.
    /// `exactSize`: every companion sampled and encoded at its cut's exact
    /// size, with no clean aperture (AVIF's route from pixels, whose photo
    /// has none either).
    func prepare(
        _ job: CompanionJob, of info: HEIFFileInfo, encoder: HEIFEncoder, exactSize: Bool = false
    ) -> Result<HEIFCompanionCut, ImagingError> {
        do throws(ImagingError) {
            switch job {
            case .companion(let companion):
                return .success(
                    try cutCompanion(
                        info, layout: companion.layout, clap: companion.clap,
                        problem: companion.problem, boxes: companion.boxes,
                        nclx: companion.nclx, encoder: encoder, exactSize: exactSize))
            case .eye(let eye):
                return .success(
                    try cutCompanion(
                        info, layout: eye.layout, clap: eye.clap, problem: eye.problem,
                        boxes: eye.boxes, nclx: info.nclx, encoder: encoder, sameGrid: true,
                        exactSize: exactSize))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Writes the companions of a HEIC crop after its primary, from their
    /// cuts (``prepare(_:of:encoder:)`` of each of ``companionJobs(_:encoder:)``,
    /// in its order): each
    /// auxiliary image with its `auxC` and own XMP, the `tmap` rendition
    /// with its `altr` group, and the other eye of a `ster` pair. A
    /// companion that could not be cut is dropped and said so; the crop
    /// goes on.
    func writeHEIFCompanions(
        _ info: HEIFFileInfo, prepared: [Result<HEIFCompanionCut, ImagingError>],
        encoder: HEIFEncoder, primary: Int, transforms: [[UInt8]],
        into writer: inout HEIFFileWriter
    ) -> HEIFCompanionsWritten {
        var result = HEIFCompanionsWritten()
        let keep = Self.keepsCompanions(encoder)
        let why = encoder.metadata.stripAll ? "--strip all" : "--companions drop"
        let cutting = info.companions.filter { keep && !$0.showsWholePhoto }
        var written: [Int: Int] = [:]
        var auxiliaryOf: [Int] = []
        for companion in info.companions {
            let what =
                "auxiliary item \(companion.item) \(companion.role) (\(companion.width)x\(companion.height))"
            func drop(_ reason: String, warn: Bool = true) {
                result.entries[companion.item] = MetadataEntry(
                    segment: what, action: .dropped, reason: reason)
                if warn { result.warnings.append("the \(companion.name) was dropped: \(reason)") }
            }
            guard keep else {
                drop(
                    "\(why): "
                        + (companion.role.hasSuffix("hdrgainmap")
                            ? "the crop shows in standard dynamic range" : "not carried"),
                    warn: false)
                continue
            }
            guard let n = cutting.firstIndex(where: { $0.item == companion.item }),
                n < prepared.count
            else {
                drop("an image of the whole photo, on no grid of the crop's: removed", warn: false)
                continue
            }
            do throws(ImagingError) {
                let cut = try prepared[n].get()
                let image = try Self.writeImage(
                    cut.info, cut: cut.tiles, single: cut.single, fixesEdges: encoder.fixesEdges,
                    quality: encoder.quality, input: source.input, transforms: transforms,
                    hidden: true, extra: [(companion.auxC, true)], encoded: cut.encoded,
                    into: &writer)
                written[companion.item] = image.item
                if companion.role.hasSuffix("hdrgainmap") { result.keptGainMap = true }
                auxiliaryOf.append(image.item)
                result.entries[companion.item] = MetadataEntry(
                    segment: what, action: .rewritten,
                    reason:
                        "the \(companion.name) cut to the crop: \(cut.size) of its \(companion.width)x\(companion.height), \(cut.how(image))"
                )
                // Its own XMP (a gain map's version and headroom, a depth
                // map's calibration), cleaned as the photo's is, for its cut
                // size; other describing items are not carried.
                for description in companion.descriptions {
                    let name = "XMP item of auxiliary item \(companion.item)"
                    guard description.type == "mime",
                        description.contentType == "application/rdf+xml"
                    else {
                        result.extra.append(
                            MetadataEntry(
                                segment:
                                    "\(description.type) item \(description.item) of auxiliary item \(companion.item)",
                                action: .dropped, reason: "not XMP: not carried"))
                        continue
                    }
                    let (xmp, entry) = MetadataBlockCleaner.xmp(
                        description.data, name: name, size: cut.size,
                        policy: placing(encoder.metadata), keepsGainMapItems: true,
                        keepsStoredGrid: true)
                    var kept = entry
                    if entry.action == .kept {
                        kept.reason = "the \(companion.name)'s own description"
                    }
                    result.extra.append(kept)
                    guard let xmp else { continue }
                    let item = writer.addItem(
                        type: "mime", hidden: true, properties: [],
                        contentType: "application/rdf+xml")
                    writer.setData(item, .bytes(Array(xmp.utf8)))
                    writer.reference("cdsc", from: item, to: [image.item])
                }
            } catch {
                drop(
                    "\(error.description)"
                        + (companion.role.hasSuffix("hdrgainmap")
                            ? "; the crop shows in standard dynamic range" : ""))
            }
        }
        // The tone-map rendition: its payload (the gain map's parameters)
        // unchanged, its size the crop's as displayed, its inputs the new
        // primary and gain map.
        if let toneMap = info.toneMap {
            let what = "tmap item \(toneMap.item)"
            if let gainMap = written[toneMap.gainMap] {
                let size = outputSize
                let item = writer.addItem(
                    type: "tmap", hidden: toneMap.hidden,
                    properties: [
                        (HEIFFileWriter.ispe(width: size.width, height: size.height), false)
                    ]
                        + toneMap.boxes.map { ($0.box, $0.essential) })
                writer.setData(item, .bytes(toneMap.data))
                writer.reference("dimg", from: item, to: [primary, gainMap])
                for group in info.groups
                where group.type == "altr" && group.entities.contains(toneMap.item) {
                    let mapped = group.entities.compactMap { id -> Int? in
                        id == toneMap.item ? item : id == info.primaryItem ? primary : nil
                    }
                    if mapped.count >= 2 { writer.group("altr", mapped) }
                }
                result.entries[toneMap.item] = MetadataEntry(
                    segment: what, action: .rewritten,
                    reason:
                        "the HDR rendition (ISO 21496-1): its parameters kept, its size \(size), its inputs the crop and its cut gain map"
                )
            } else {
                result.entries[toneMap.item] = MetadataEntry(
                    segment: what, action: .dropped,
                    reason: "the HDR rendition of the whole photo: its gain map is not carried")
            }
        }
        // Each names the photo alone: Apple's also name the `tmap` item,
        // and Debian 12's libheif 1.15 refuses a file whose
        // auxiliary image names two ("Too many auxiliary image
        // references"), the source as well as its crop.
        for item in auxiliaryOf {
            writer.reference("auxl", from: item, to: [primary])
        }
        // The other eye of a stereo pair: the same rect of its own image.
        for (number, eye) in info.stereoEyes.enumerated() {
            let what = "grid item \(eye.item)"
            guard keep, cutting.count + number < prepared.count else {
                result.entries[eye.item] = MetadataEntry(
                    segment: what, action: .dropped, reason: "\(why): the other eye not carried")
                continue
            }
            do throws(ImagingError) {
                let cut = try prepared[cutting.count + number].get()
                let image = try Self.writeImage(
                    cut.info, cut: cut.tiles, single: cut.single, fixesEdges: encoder.fixesEdges,
                    quality: encoder.quality, input: source.input, transforms: transforms,
                    hidden: false, encoded: cut.encoded, into: &writer)
                let mapped = eye.group.entities.compactMap { id -> Int? in
                    id == eye.item ? image.item : id == info.primaryItem ? primary : nil
                }
                writer.group("ster", mapped)
                result.describedWithPhoto.append(image.item)
                result.entries[eye.item] = MetadataEntry(
                    segment: what, action: .rewritten,
                    reason:
                        "the other eye of the stereo pair cut by the same rect: \(cut.size), \(cut.how(image)); a copy of the photo's EXIF and XMP describes it"
                )
            } catch {
                result.entries[eye.item] = MetadataEntry(
                    segment: what, action: .dropped, reason: error.description)
                result.warnings.append(
                    "the other eye of the stereo pair was dropped: \(error.description)")
            }
        }
        return result
    }

    /// A companion (or the other eye) made ready to write: the file seen as
    /// that image, its tiles' cut, or the one image sampled or encoded.
    struct HEIFCompanionCut: Sendable {
        var info: HEIFFileInfo
        var tiles: HEIFTileCut
        var single: RectImage?
        var size: PixelSize<StoredPixels>
        var sampled: Bool
        /// Its edge tiles encoded again, when its tiles are cut.
        var encoded: [Int: EncodedTile] = [:]

        /// "4 tile(s) copied", "2 tile(s) copied, 1 encoded again",
        /// "sampled between its pixels and encoded at quality 90".
        func how(_ image: WrittenHEIFImage) -> String {
            if sampled {
                return "sampled between its pixels and encoded as one image"
            }
            if single != nil { return "its rect encoded as one image" }
            let copied = tiles.tiles.count - image.reencoded
            return image.reencoded == 0
                ? "lossless (\(copied) tile(s) copied)"
                : "\(copied) tile(s) copied, \(image.reencoded) edge tile(s) encoded again"
        }
    }

    /// The cut of one companion of `info` for this crop's stored rect: on
    /// whole pixels of its grid its tiles are cut as the primary's are;
    /// between them it is sampled by the companion rule and encoded as one
    /// image. `sameGrid`: the other eye, on the primary's grid.
    /// `exactSize`: sampled and encoded at the cut's size whatever its
    /// grid, with no clean aperture.
    func cutCompanion(
        _ info: HEIFFileInfo, layout: HEIFLayout?, clap: PixelRect<StoredPixels>?,
        problem: String?, boxes: [[UInt8]], nclx: HEIFColourDescription?, encoder: HEIFEncoder,
        sameGrid: Bool = false, exactSize: Bool = false
    ) throws(ImagingError) -> HEIFCompanionCut {
        if let problem { throw .unsupported(format: .heif, detail: problem) }
        guard let layout else {
            throw .unsupported(format: .heif, detail: "its tiles cannot be read")
        }
        let photo = PixelSize<StoredPixels>(width: info.width, height: info.height)
        let size = PixelSize<StoredPixels>(
            width: clap?.width ?? layout.width, height: clap?.height ?? layout.height)
        guard let grid = CompanionGrid(imageSize: photo, companionSize: size) else {
            throw .unsupported(format: .heif, detail: "its size \(size) has no grid")
        }
        guard grid.isAligned else {
            throw .unsupported(
                format: .heif,
                detail:
                    "it is \(size), not at the \(photo) photo's aspect ratio (\((grid.aspectMismatch * 1000).rounded() / 10) % off): its alignment is unknown"
            )
        }
        let image = info.image(layout, clap: clap, boxes: boxes, nclx: nclx)
        let (ox, oy) = image.origin
        guard let crop = companionCrop else {
            // Straightened (or reaching beyond the photo): AVIF's route from
            // pixels samples it at the crop's own positions.
            guard exactSize, let resampling else {
                throw .unsupported(
                    format: .heif, detail: "a straightened crop does not resample companions")
            }
            try requireEncoder(image)
            return try straightenedCompanion(
                image, crop: resampling.crop, companion: size,
                quality: sameGrid ? encoder.quality : Self.companionQuality(encoder))
        }
        let cut = grid.cut(crop.rect, resizedTo: crop.output)
        let lossless = encoder.method != .automatic
        guard let copy = cut.copyRect, !exactSize else {
            guard !lossless else {
                throw .unsupported(
                    format: .heif,
                    detail:
                        "the crop does not lie on its whole pixels, and a lossless crop encodes nothing"
                )
            }
            try requireEncoder(image)
            let single = try Self.sampledCompanion(
                image, cut: cut, input: source.input,
                quality: sameGrid ? encoder.quality : Self.companionQuality(encoder),
                exactSize: exactSize)
            let tiles = Self.heifTileCut(image, stored: cut.readRect)
            return HEIFCompanionCut(
                info: image, tiles: tiles, single: single, size: cut.size, sampled: true)
        }
        let shown = PixelRect<StoredPixels>(
            x: copy.x + ox, y: copy.y + oy, width: copy.width, height: copy.height)
        let tiles = try Self.checkedCut(
            Self.heifTileCut(image, stored: copy), of: image, shown: shown,
            fixesEdges: encoder.fixesEdges, input: source.input)
        let fixes = encoder.fixesEdges ? tiles.tiles.filter(\.fix).count : 0
        if fixes > 0 {
            guard !lossless else {
                throw .unsupported(
                    format: .heif,
                    detail:
                        "\(fixes) of its edge tiles hold pixels beyond the crop, and a lossless crop encodes nothing"
                )
            }
            try requireEncoder(image)
        }
        let copiesNone = encoder.fixesEdges && tiles.tiles.allSatisfy(\.fix)
        let single =
            copiesNone && Self.rectImageGeometry(info: image, cut: tiles) != nil
            ? try Self.rectImage(
                info: image, cut: tiles, input: source.input,
                quality: sameGrid ? encoder.quality : Self.companionQuality(encoder))
            : nil
        return HEIFCompanionCut(
            info: image, tiles: tiles, single: single, size: cut.size, sampled: false,
            encoded: single != nil
                ? [:]
                : try Self.encodeEdgeTiles(
                    image, cut: tiles, fixesEdges: encoder.fixesEdges, quality: encoder.quality,
                    input: source.input))
    }

    /// Companions are encoded at no less than quality 90: a gain map's or a
    /// depth map's values are read as numbers, not looked at.
    static func companionQuality(_ encoder: HEIFEncoder) -> Int { max(encoder.quality, 90) }

    private func requireEncoder(_ image: HEIFFileInfo) throws(ImagingError) {
        guard HEIFEncoder.canEncodeTiles else {
            throw .unsupported(
                format: .heif,
                detail: "this libheif cannot encode \(image.codec.name) to cut it between its tiles"
            )
        }
    }

    /// A companion sampled by the companion rule: each output pixel the
    /// bilinear sample at its exact position (chroma planes at their own
    /// sample positions), the coded size grown to whole 8x8 blocks of at
    /// least 64 (every sample beyond the cut its nearest edge sample) with
    /// a clean aperture cutting the cut, encoded as one image; or, with
    /// `exactSize`, coded at the cut's size with no clean aperture.
    static func sampledCompanion(
        _ info: HEIFFileInfo, cut: CompanionCut<StoredPixels>, input: ImageInput, quality: Int,
        exactSize: Bool = false
    ) throws(ImagingError) -> RectImage {
        let (outW, outH) = (cut.size.width, cut.size.height)
        let width = exactSize ? outW : max(64, (outW + 7) / 8 * 8)
        let height = exactSize ? outH : max(64, (outH + 7) / 8 * 8)
        let planes = try sampledPlanes(info, cut: cut, input: input, width: width, height: height)
        let coded = try encodePlanes(
            planes, width: width, height: height, info: info, quality: quality)
        let layout = info.layout
        let first = layout.tiles[0]
        let colour =
            layout.isGrid ? info.primaryBoxes : first.colourBoxes + (first.pixi.map { [$0] } ?? [])
        return RectImage(
            configuration: coded.configuration, data: coded.data, width: width, height: height,
            aperture: PixelRect(x: 0, y: 0, width: outW, height: outH), colourBoxes: colour)
    }

    /// The planes of a companion's cut, `width`×`height` (at least the
    /// cut's size; every sample beyond it its nearest edge sample), each
    /// sample the bilinear sample of the rule at its position, as coded
    /// (1 or 2 bytes a sample, little-endian).
    static func sampledPlanes(
        _ info: HEIFFileInfo, cut: CompanionCut<StoredPixels>, input: ImageInput, width: Int,
        height: Int
    ) throws(ImagingError) -> [[UInt8]] {
        let layout = info.layout
        // The cut's positions are on the companion as shown (its clean
        // aperture); its samples on the canvas lie `origin` further.
        let (ox, oy) = info.origin
        let read = PixelRect<StoredPixels>(
            x: cut.readRect.x + ox, y: cut.readRect.y + oy, width: cut.readRect.width,
            height: cut.readRect.height)
        // Two samples' margin, so that a chroma sample left of the first
        // luma sample's is decoded too.
        let margin = PixelRect<StoredPixels>(
            x: max(read.x - 2, 0), y: max(read.y - 2, 0),
            width: min(read.maxX + 2, layout.width) - max(read.x - 2, 0),
            height: min(read.maxY + 2, layout.height) - max(read.y - 2, 0))
        let indices = layout.tiles(touching: margin)
        let decoded = try concurrentResults(indices.count) { n throws(ImagingError) in
            try decodePlanes(layout.tiles[indices[n]], index: indices[n], info: info, input: input)
        }
        var slot = [Int](repeating: -1, count: layout.tiles.count)
        for (n, index) in indices.enumerated() { slot[index] = n }
        let (outW, outH) = (cut.size.width, cut.size.height)
        let sample = info.bitDepth > 8 ? 2 : 1
        let maximum = (1 << info.bitDepth) - 1
        let (sx, sy) = info.chromaSubsampling
        let dims = info.planeSizes(width: width, height: height)
        let sourceDims = info.planeSizes(width: layout.width, height: layout.height)
        let (companionW, companionH) = (cut.grid.companionSize.width, cut.grid.companionSize.height)
        let (photoW, photoH) = (cut.grid.imageSize.width, cut.grid.imageSize.height)
        let rect = cut.rect
        var planes: [[UInt8]] = []
        for p in 0..<info.planeCount {
            let (dx, dy) = p == 0 ? (1, 1) : (sx, sy)
            let (w, h) = dims[p]
            // A tile's samples in this plane: rounded up, as its plane is
            // (a grid's tiles are whole chroma samples; a one-image
            // companion of odd size, an AVIF crop's own, is not).
            let (tw, th) = ((layout.tileWidth + dx - 1) / dx, (layout.tileHeight + dy - 1) / dy)
            // Samples beyond the clean aperture are never read: a position
            // past its edge takes its edge sample.
            let lowX = ox / dx
            let lowY = oy / dy
            let highX = min((ox + companionW - 1) / dx, sourceDims[p].0 - 1)
            let highY = min((oy + companionH - 1) / dy, sourceDims[p].1 - 1)
            // The plane's samples of the cut itself; beyond them, the edge.
            let (keepW, keepH) = ((outW + dx - 1) / dx, (outH + dy - 1) / dy)
            var widths: [Int] = []
            for index in indices {
                let coded = layout.tiles[index]
                widths.append(info.planeSizes(width: coded.width, height: coded.height)[p].0)
            }
            // Where each output column and row of this plane samples the
            // source plane: exactly for luma (the rule's own positions), in
            // the chroma grid's units for chroma (sample k's centre at luma
            // (k + ½)·d − ½).
            func positions(
                _ count: Int, _ keep: Int, _ d: Int, luma: (Int) -> CompanionPosition,
                origin: Int, side: Int, out: Int, photo: Int, companion: Int, shift: Int
            )
                -> [(Int, Double)]
            {
                (0..<count).map { k in
                    let k = min(k, keep - 1)
                    if d == 1 {
                        let position = luma(k)
                        return (position.floor + shift, position.fraction)
                    }
                    // Output luma position of this chroma sample, then the
                    // source's, then in source chroma units.
                    let i = (Double(k) + 0.5) * Double(d) - 0.5
                    let source =
                        (Double(origin) + (i + 0.5) * Double(side) / Double(out))
                        * Double(companion) / Double(photo) - 0.5
                    let chroma = (source + Double(shift) + 0.5) / Double(d) - 0.5
                    let floor = chroma.rounded(.down)
                    return (Int(floor), chroma - floor)
                }
            }
            let columns = positions(
                w, keepW, dx, luma: { cut.sampleX($0) }, origin: rect.x, side: rect.width,
                out: outW, photo: photoW, companion: companionW, shift: ox)
            let rows = positions(
                h, keepH, dy, luma: { cut.sampleY($0) }, origin: rect.y, side: rect.height,
                out: outH, photo: photoH, companion: companionH, shift: oy)
            // Each column's two source samples, clamped to the clean
            // aperture: their tile column and their offset in it, found
            // once (not a division a sample).
            func place(_ v: Int, low: Int, high: Int, side: Int) -> (tile: Int, within: Int) {
                let c = min(max(v, low), high)
                return (c / side, c % side)
            }
            let left = columns.map { place($0.0, low: lowX, high: highX, side: tw) }
            let right = columns.map { place($0.0 + 1, low: lowX, high: highX, side: tw) }
            let weightsX = columns.map(\.1)
            let tilePlanes = decoded.map { $0[p] }
            var out = [UInt8](repeating: 0, count: w * h * sample)
            for (y, (y0, ty)) in rows.enumerated() {
                let top = place(y0, low: lowY, high: highY, side: th)
                let bottom = place(y0 + 1, low: lowY, high: highY, side: th)
                // The tiles and row starts of the two source rows, by tile
                // column: -1 where a tile was not decoded.
                var rowData: [(slot: Int, start: Int, slot2: Int, start2: Int)] = []
                for column in 0..<layout.columns {
                    let n = slot[top.tile * layout.columns + column]
                    let m = slot[bottom.tile * layout.columns + column]
                    rowData.append(
                        (
                            n, n >= 0 ? top.within * widths[n] : 0, m,
                            m >= 0 ? bottom.within * widths[m] : 0
                        ))
                }
                for x in 0..<w {
                    let (l, r, tx) = (left[x], right[x], weightsX[x])
                    let (nl, sl, ml, tl) = rowData[l.tile]
                    let (nr, sr, mr, tr) = rowData[r.tile]
                    guard nl >= 0, nr >= 0, ml >= 0, mr >= 0 else {
                        throw .corrupt(
                            format: .heif, detail: "the cut reaches a tile it does not read")
                    }
                    func read(_ n: Int, _ at: Int) -> Double {
                        sample == 1
                            ? Double(tilePlanes[n][at])
                            : Double(
                                Int(tilePlanes[n][2 * at]) | Int(tilePlanes[n][2 * at + 1]) << 8)
                    }
                    let a = read(nl, sl + l.within)
                    let b = read(nr, sr + r.within)
                    let c = read(ml, tl + l.within)
                    let d = read(mr, tr + r.within)
                    let v = (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty
                    let coded = min(max(Int(v.rounded()), 0), maximum)
                    let at = (y * w + x) * sample
                    out[at] = UInt8(coded & 0xFF)
                    if sample == 2 { out[at + 1] = UInt8(coded >> 8) }
                }
            }
            planes.append(out)
        }
        return planes
    }
}

extension HEIFFileInfo {
    /// Apple's HDR gain map of this HEIC cut to the stored rect `stored`
    /// by the companion rule, as the 8-bit gray image and XMP Apple writes
    /// in a JPEG (its `apdi` type and formats, its `HDRGainMap` version from
    /// the HEIC's own description); `nil` when the file has none. Throws
    /// when it cannot be cut (the crop goes on without it).
    func appleGainMapForJPEG(in input: ImageInput, stored: PixelRect<StoredPixels>)
        throws(ImagingError) -> JPEGGainMapCut?
    {
        let role = "urn:com:apple:photo:2020:aux:hdrgainmap"
        guard let companion = companions.first(where: { $0.role == role }) else {
            return try ultraHDRGainMapForJPEG(in: input, stored: stored)
        }
        if let layout = companion.layout,
            layout.tiles[0].bitDepth != 8 || layout.tiles[0].chromaCode != 0
        {
            throw .unsupported(
                format: .heif,
                detail:
                    "it is not 8-bit monochrome, the form Apple's JPEG gain map takes")
        }
        let (planes, size) = try eightBitCut(companion, stored: stored, input: input)
        // The HEIC's own description names the version; Apple's JPEG form
        // names the type and the formats beside it ('L008': 8-bit luma).
        var version = "65536"
        for description in companion.descriptions where description.type == "mime" {
            let text = String(decoding: description.data, as: UTF8.self)
            if let start = text.range(of: "HDRGainMapVersion>")?.upperBound
                ?? text.range(of: "HDRGainMapVersion=\"")?.upperBound,
                let end = text[start...].firstIndex(where: { !$0.isNumber }),
                !text[start..<end].isEmpty
            {
                version = String(text[start..<end])
            }
        }
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"><apdi:AuxiliaryImageType>\(role)</apdi:AuxiliaryImageType><apdi:StoredFormat>1278226488</apdi:StoredFormat><apdi:NativeFormat>1278226488</apdi:NativeFormat><HDRGainMap:HDRGainMapVersion>\(version)</HDRGainMap:HDRGainMapVersion></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        return JPEGGainMapCut(
            image: RasterImage(
                width: size.width, height: size.height, colorType: .gray, bitDepth: 8,
                samples: planes[0]),
            xmp: xmp,
            sourceEntry:
                "auxiliary item \(companion.item) \(companion.role) (\(companion.width)x\(companion.height))"
        )
    }
}

extension HEIFFileInfo {
    /// An ISO 21496-1 gain map described by `hdrgm:` XMP (Samsung's), cut
    /// to the stored rect by the companion rule, in Ultra HDR's JPEG form:
    /// its luma as an 8-bit gray map (its chroma must be neutral, as a gray
    /// map coded as YCbCr is), and its own `hdrgm:` XMP whole; `nil` when
    /// the file has none. Throws when it cannot be cut.
    func ultraHDRGainMapForJPEG(in input: ImageInput, stored: PixelRect<StoredPixels>)
        throws(ImagingError) -> JPEGGainMapCut?
    {
        guard
            let companion = companions.first(where: { companion in
                companion.role.hasSuffix("hdrgainmap")
                    && companion.descriptions.contains {
                        String(decoding: $0.data, as: UTF8.self).contains("hdrgm:GainMapMax")
                    }
            }),
            let description = companion.descriptions.first(where: {
                String(decoding: $0.data, as: UTF8.self).contains("hdrgm:GainMapMax")
            })
        else { return nil }
        if let layout = companion.layout, layout.tiles[0].bitDepth != 8 {
            throw .unsupported(
                format: .heif, detail: "it is not an 8-bit map, the form Ultra HDR's takes here")
        }
        let (planes, size) = try eightBitCut(companion, stored: stored, input: input)
        // A gray map coded as YCbCr: every chroma sample 128 (within one).
        for plane in planes.dropFirst() where plane.contains(where: { $0 < 127 || $0 > 129 }) {
            throw .unsupported(
                format: .heif,
                detail: "it is a colour gain map, which a JPEG crop does not carry yet")
        }
        return JPEGGainMapCut(
            image: RasterImage(
                width: size.width, height: size.height, colorType: .gray, bitDepth: 8,
                samples: planes[0]),
            xmp: String(decoding: description.data, as: UTF8.self),
            sourceEntry:
                "auxiliary item \(companion.item) \(companion.role) (\(companion.width)x\(companion.height))",
            ultraHDR: true)
    }
}

extension HEIFFileInfo {
    /// `companion` (8-bit) cut to the stored rect by the companion rule,
    /// for a JPEG: its planes sampled at the cut's size, and that size.
    /// Throws why it cannot be cut: its problem, tiles that cannot be
    /// read, a grid not aligned to the photo's.
    func eightBitCut(
        _ companion: HEIFCompanion, stored: PixelRect<StoredPixels>, input: ImageInput
    ) throws(ImagingError) -> (planes: [[UInt8]], size: PixelSize<StoredPixels>) {
        if let problem = companion.problem { throw .unsupported(format: .heif, detail: problem) }
        guard let layout = companion.layout else {
            throw .unsupported(format: .heif, detail: "its tiles cannot be read")
        }
        let photo = PixelSize<StoredPixels>(width: width, height: height)
        let size = PixelSize<StoredPixels>(width: companion.width, height: companion.height)
        guard let grid = CompanionGrid(imageSize: photo, companionSize: size), grid.isAligned
        else {
            throw .unsupported(
                format: .heif, detail: "it is \(size), not aligned to the \(photo) photo")
        }
        let cut = grid.cut(stored)
        let image = self.image(layout, clap: companion.clap, boxes: [], nclx: companion.nclx)
        let planes = try CropPlan.sampledPlanes(
            image, cut: cut, input: input, width: cut.size.width, height: cut.size.height)
        return (planes, cut.size)
    }
}
