import CropGeometry

/// A JPEG's MPF index (CIPA DC-007): the images stored after the primary
/// one, each with its attribute, size and offset (from the MPF segment's
/// TIFF header, as the standard counts).
struct MPFIndex {
    struct Entry {
        var attribute: UInt32
        var size: Int
        var offset: Int
    }

    var entries: [Entry]
    /// The file offset the entries' offsets count from.
    var base: Int

    /// The index of an MPF segment body ("MPF\0" and a TIFF structure) whose
    /// body starts at `bodyOffset` in the file; `nil` when malformed.
    init?(body: [UInt8], bodyOffset: Int) {
        guard body.count >= 12, body.starts(with: Array("MPF\0".utf8)) else { return nil }
        let tiff = Array(body[4...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little
                ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let first = u32(4), let count = u16(first), count <= 64 else { return nil }
        var found: [Entry] = []
        for index in 0..<count {
            let at = first + 2 + 12 * index
            guard u16(at) == 0xB002, let length = u32(at + 4), let pointer = u32(at + 8) else {
                continue
            }
            for entry in 0..<(length / 16) {
                let e = pointer + 16 * entry
                guard let attribute = u32(e), let size = u32(e + 4), let offset = u32(e + 8) else {
                    return nil
                }
                found.append(Entry(attribute: UInt32(attribute), size: size, offset: offset))
            }
        }
        guard !found.isEmpty else { return nil }
        entries = found
        base = bodyOffset + 4
    }

    /// How the entries after the first (the primary image's own) lie about
    /// where their images are, in a file of `fileSize` bytes whose primary
    /// image ends at `primaryEnd`: one that starts before it points into
    /// the primary image's own bytes (an image there is no secondary image,
    /// and may be a thumbnail or a hidden photo); one that runs past the
    /// end of the file; two that overlap. Phrases for a report; no entry
    /// named here is read as a companion.
    func lies(primaryEnd: Int, fileSize: Int) -> [String] {
        var said: [String] = []
        var ranges: [(Int, Range<Int>)] = []
        for (number, entry) in entries.enumerated().dropFirst() where entry.size > 0 {
            let start = base + entry.offset
            if entry.offset == 0 || start < primaryEnd {
                said.append("its entry \(number + 1) points into the primary image's own bytes")
                continue
            }
            guard entry.size <= fileSize, start <= fileSize - entry.size else {
                said.append("its entry \(number + 1) runs past the end of the file")
                continue
            }
            let range = start..<start + entry.size
            if let (other, _) = ranges.first(where: { $0.1.overlaps(range) }) {
                said.append("its entries \(other + 1) and \(number + 1) overlap")
            }
            ranges.append((number, range))
        }
        return said
    }

    /// An MPF segment (whole, marker and length included) for a primary
    /// image and one more image, big-endian, with the sizes and the offset
    /// left zero: ``patch(_:primarySize:secondSize:)`` fills them once the
    /// primary's size is known.
    static func segment(secondAttribute: UInt32) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16 & 0xFFFF) + u16(v & 0xFFFF) }
        // TIFF header (8), IFD of 3 entries (2 + 36 + 4) at 8, entries at 50.
        var tiff: [UInt8] = [0x4D, 0x4D] + u16(42) + u32(8)
        tiff += u16(3)
        tiff += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)
        tiff += u16(0xB001) + u16(4) + u32(1) + u32(2)
        tiff += u16(0xB002) + u16(7) + u32(32) + u32(50)
        tiff += u32(0)
        tiff += u32(0x0003_0000) + u32(0) + u32(0) + u16(0) + u16(0)
        tiff += u32(Int(secondAttribute)) + u32(0) + u32(0) + u16(0) + u16(0)
        let body = Array("MPF\0".utf8) + tiff
        return [0xFF, 0xE2] + u16(body.count + 2) + body
    }

    /// Fills the sizes and the second image's offset of the segment made by
    /// ``segment(secondAttribute:)`` inside `primary`, the whole primary
    /// JPEG, which the second image follows.
    static func patch(_ primary: inout [UInt8], secondSize: Int) -> Bool {
        let signature = Array("MPF\0MM".utf8)
        guard
            let at = primary.indices.first(where: { index in
                index + signature.count <= primary.count
                    && primary[index..<index + signature.count].elementsEqual(signature)
            })
        else { return false }
        let tiff = at + 4
        func put(_ value: Int, _ offset: Int) {
            for i in 0..<4 { primary[tiff + offset + i] = UInt8(value >> (24 - 8 * i) & 0xFF) }
        }
        put(primary.count, 50 + 4)
        put(secondSize, 66 + 4)
        put(primary.count - tiff, 66 + 8)
        return true
    }
}

/// An HDR gain map stored after a JPEG photo (Apple's, or an Ultra HDR
/// one), or the other eye of a stereo pair (an MPO's disparity image),
/// found through the photo's MPF index: a companion a JPEG crop cuts.
struct GainMap {
    /// The gain map's own JPEG file.
    var bytes: [UInt8]
    /// Its MPF attribute, kept in the crop's index.
    var attribute: UInt32
    /// Whether it is the other eye of a stereo pair (an MPO's disparity or
    /// multi-angle image) rather than a gain map.
    var isEye = false

    /// What it is, for the report.
    var name: String { isEye ? "the other eye of the stereo pair" : "the HDR gain map" }

    /// The MP type codes of a stereo pair's second image (CIPA DC-007):
    /// disparity and multi-angle.
    static let eyeTypes: Set<UInt32> = [0x02_0002, 0x02_0003]

    /// What a gain map's own markers say of it: Apple's `hdrgainmap`
    /// auxiliary type or `HDRGainMap` namespace, Ultra HDR's `hdrgm:`.
    static let descriptions: [[UInt8]] = ["hdrgainmap", "hdrgm:", "HDRGainMap"].map {
        Array($0.utf8)
    }

    /// The gain map of the photo whose markers are `info`, if it has one;
    /// with `eyes`, the other eye of a stereo pair too (a gain map first).
    static func find(_ info: JPEGFileInfo, input: ImageInput, eyes: Bool = false)
        throws(ImagingError) -> GainMap?
    {
        var eye: GainMap?
        for segment in info.segments where segment.marker == 0xE2 {
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            guard let index = MPFIndex(body: body, bodyOffset: segment.bodyOffset) else { continue }
            // An image cannot start inside the primary's scan (FF D8 is no
            // byte pair of entropy-coded data), so one that starts after
            // the first scan's header starts after the primary's end; one
            // before it is in the primary's own segments, and not read.
            let scanStart =
                info.segments.first { $0.marker == 0xDA }.map {
                    $0.bodyOffset + $0.bodyLength
                } ?? input.byteCount
            for entry in index.entries where entry.offset > 0 && entry.size > 4 {
                let start = index.base + entry.offset
                guard start >= scanStart, start + entry.size <= input.byteCount,
                    entry.size <= 64 << 20
                else {
                    continue
                }
                let bytes = try input.read(at: start, count: entry.size, format: .jpeg)
                // Its first 64 KiB name it, compared as bytes (as a String,
                // through Foundation, the search cost a crop 1-2 ms a call).
                let head = Array(bytes.prefix(65536))
                if bytes.starts(with: [0xFF, 0xD8]),
                    Self.descriptions.contains(where: { LeakCheck.contains(head, $0) })
                {
                    return GainMap(bytes: bytes, attribute: entry.attribute)
                }
                if eyes, eye == nil, bytes.starts(with: [0xFF, 0xD8]),
                    eyeTypes.contains(entry.attribute & 0xFF_FFFF)
                {
                    eye = GainMap(bytes: bytes, attribute: entry.attribute, isEye: true)
                }
            }
        }
        return eye
    }
}

extension GainMap {
    /// The gain map of `source`, when it is a JPEG that carries one.
    static func find(in source: ImageSource) throws(ImagingError) -> GainMap? {
        guard let info = source.header as? JPEGFileInfo else { return nil }
        return try find(info, input: source.input)
    }

    /// The gain map's grid beside a photo of `photo` stored pixels, when it
    /// is aligned to it; `map` is the gain map opened.
    static func grid(_ map: ImageSource, photo: PixelSize<StoredPixels>)
        -> CompanionGrid<StoredPixels>?
    {
        guard let grid = CompanionGrid(imageSize: photo, companionSize: map.storedSize),
            grid.isAligned
        else { return nil }
        return grid
    }

    /// Why a companion was dropped instead of cut, in a sentence.
    struct Dropped: Error {
        var reason: String
    }

    /// This companion cut for the crop `rect` of a photo of `photo` stored
    /// pixels (``cut(_:grid:rect:lenient:)``): its new file and how it was
    /// made; or, for one that cannot be read within `limits`, claims more
    /// pixels than they allow, is not aligned to the photo or cannot be
    /// decoded, why it is dropped.
    func cut(
        for rect: PixelRect<StoredPixels>, of photo: PixelSize<StoredPixels>,
        limits: DecodeLimits, lenient: Bool
    ) -> Result<(bytes: [UInt8], how: String), Dropped> {
        let lost =
            isEye ? "the crop is not a stereo pair" : "the crop shows in standard dynamic range"
        func dropped(_ why: String) -> Result<(bytes: [UInt8], how: String), Dropped> {
            .failure(Dropped(reason: "\(name) \(why): dropped, \(lost)"))
        }
        let map: ImageSource
        do throws(ImagingError) {
            map = try ImageSource(ImageInput(bytes: bytes, name: "gain map"), limits: limits)
        } catch {
            return dropped("cannot be read (\(error))")
        }
        let size = map.storedSize
        let pixels = size.width.multipliedReportingOverflow(by: size.height)
        guard !pixels.overflow, pixels.partialValue <= limits.maxPixels else {
            return dropped("(\(size)) is past the \(limits.maxPixels)-pixel limit")
        }
        guard let grid = Self.grid(map, photo: photo) else {
            return dropped(
                "(\(size)) is not aligned to the \(photo) photo (its aspect ratio more than 1 % off, or a side over \(CompanionGrid<StoredPixels>.maximumSide))"
            )
        }
        do throws(ImagingError) {
            return .success(try cut(map, grid: grid, rect: rect, lenient: lenient))
        } catch {
            return dropped("cannot be cut (\(error))")
        }
    }

    /// The quality a gain map sampled between its pixels (or copied off its
    /// block grid) is encoded at: on the real gain maps of the test data
    /// the alignment goal (mean error at most 0.6 codes, 99th percentile at
    /// most 3) holds with room at it (mean 0.26, 99th percentile 1.3 at
    /// worst), where 95 reached a 99th percentile of 3.0.
    static let sampledQuality = 98

    /// The gain map cut by the companion rule for the crop `rect` of a
    /// photo of `photo` stored pixels: where the rect scales to whole gain
    /// map pixels, those pixels (copied in the DCT domain where they lie on
    /// its block grid, else encoded again with its own tables); elsewhere
    /// each pixel sampled (bilinear) where the rule puts it, encoded at
    /// ``sampledQuality``. The gain map's own XMP (its `hdrgm:` or Apple's
    /// `apdi:` description) is kept whole; nothing else of its file.
    ///
    /// - Returns: The gain map's new JPEG file, and how it was made, in
    ///   words for the report.
    func cut(
        _ map: ImageSource, grid: CompanionGrid<StoredPixels>, rect: PixelRect<StoredPixels>,
        lenient: Bool
    ) throws(ImagingError) -> (bytes: [UInt8], how: String) {
        let cut = grid.cut(rect)
        let sink = MemorySink()
        let how: String
        let stripped = MetadataPolicy(stripAll: true)
        if isEye, let copy = cut.copyRect {
            // An eye is a photo of its own: cut as the primary is (its
            // blocks copied on its grid, else encoded with its own tables),
            // its metadata cleaned as a crop's.
            let report = try Self.copy(
                copy, of: map, encoder: JPEGEncoder(metadata: MetadataPolicy(companions: .drop)),
                lenient: lenient, to: sink)
            return (sink.bytes, "\(cut.size) of its \(grid.companionSize), \(report.summary)")
        }
        if let copy = cut.copyRect {
            // On the gain map's block grid its blocks are copied; off it,
            // the rect's pixels are encoded again at the sampled quality
            // (encoded with the map's own tables, a second generation of
            // its loss broke the alignment goal: 99th percentile 4 codes).
            let blocks = (map.header as? JPEGFileInfo)?.blockGrid
            let onBlocks = blocks.map { copy.x % $0.width == 0 && copy.y % $0.height == 0 } ?? false
            let encoder = JPEGEncoder(
                quality: onBlocks ? nil : Self.sampledQuality, metadata: stripped)
            let report = try Self.copy(copy, of: map, encoder: encoder, lenient: lenient, to: sink)
            let method = report.details(as: JPEGWriteReport.self)?.method
            how =
                "\(cut.size) of its \(grid.companionSize), an exact copy of \(copy) ("
                + (method == .reencoded
                    ? "off its block grid: encoded again at quality \(Self.sampledQuality)"
                    : "its blocks copied, lossless") + ")"
        } else {
            let read = cut.readRect
            let decoded = try map.decode(read, lenient: lenient).image
            let sampled = Self.sample(decoded, at: read, cut: cut)
            let info = map.header as? JPEGFileInfo
            let coding = JPEGEncoder.qualityCoding(
                Self.sampledQuality, horizontal: info?.horizontalSampling ?? [1],
                vertical: info?.verticalSampling ?? [1], progressive: false)
            _ = try JPEGEncoder(metadata: stripped).encode(
                sampled, coding: coding, markers: [], writeJFIF: true, to: sink)
            how =
                "\(cut.size) of its \(grid.companionSize), sampled between its pixels by the companion rule and encoded at quality \(Self.sampledQuality)"
        }
        return (try withOwnXMP(sink.bytes, from: map), how)
    }

    /// `rect` of the companion `map` written to `sink` as JPEG by `encoder`
    /// through the crop pipeline, as the primary is cut.
    static func copy(
        _ rect: PixelRect<StoredPixels>, of map: ImageSource, encoder: JPEGEncoder, lenient: Bool,
        to sink: MemorySink
    ) throws(ImagingError) -> CropReport {
        let job = CropJob(
            region: .pixels(
                PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)),
            orientation: .up, format: .jpeg(encoder), lenient: lenient)
        let plan: CropPlan
        do throws(CropPlanError) {
            plan = try job.plan(for: map)
        } catch {
            throw .corrupt(format: .jpeg, detail: "the companion has no crop at \(rect): \(error)")
        }
        return try plan.export(to: sink)
    }

    /// The pixels of `cut` sampled from `image`, the gain map's `read`
    /// rect (8-bit, any channels): bilinear at the rule's positions, edges
    /// clamped, rounded to the nearest code.
    static func sample(
        _ image: RasterImage, at read: PixelRect<StoredPixels>, cut: CompanionCut<StoredPixels>
    )
        -> RasterImage
    {
        let channels = image.colorType.channels
        let (mw, mh) = (cut.grid.companionSize.width, cut.grid.companionSize.height)
        let (width, height) = (cut.size.width, cut.size.height)
        func clamp(_ v: Int, _ side: Int) -> Int { min(max(v, 0), side - 1) }
        // Each column's two source columns (in the read rect) and weight.
        // A sample on a pixel's centre weighs no neighbour, which the read
        // rect may not hold (the last sample's): it reads its own pixel.
        func neighbour(_ p: CompanionPosition, _ side: Int, _ origin: Int, _ span: Int) -> Int {
            p.isWhole
                ? clamp(p.floor, side) - origin : min(clamp(p.floor + 1, side) - origin, span - 1)
        }
        let columns = (0..<width).map { i in
            let p = cut.sampleX(i)
            return (clamp(p.floor, mw) - read.x, neighbour(p, mw, read.x, read.width), p.fraction)
        }
        var samples = [UInt8](repeating: 0, count: width * height * channels)
        image.samples.withUnsafeBufferPointer { source in
            for j in 0..<height {
                let p = cut.sampleY(j)
                let (r0, r1, ty) = (
                    clamp(p.floor, mh) - read.y, neighbour(p, mh, read.y, read.height), p.fraction
                )
                let row0 = r0 * image.width * channels
                let row1 = r1 * image.width * channels
                for (i, (c0, c1, tx)) in columns.enumerated() {
                    for k in 0..<channels {
                        let a = Double(source[row0 + c0 * channels + k])
                        let b = Double(source[row0 + c1 * channels + k])
                        let c = Double(source[row1 + c0 * channels + k])
                        let d = Double(source[row1 + c1 * channels + k])
                        let value =
                            (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty
                        samples[(j * width + i) * channels + k] = UInt8(
                            min(255, max(0, value.rounded())))
                    }
                }
            }
        }
        return RasterImage(
            width: width, height: height, colorType: image.colorType, bitDepth: 8, samples: samples)
    }

    /// `jpeg` with the gain map's own XMP segments (the ones that describe
    /// it: `hdrgm:` or Apple's `apdi:`) put back after its SOI and JFIF.
    func withOwnXMP(_ jpeg: [UInt8], from map: ImageSource) throws(ImagingError) -> [UInt8] {
        guard let info = map.header as? JPEGFileInfo else { return jpeg }
        let signature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
        var kept: [UInt8] = []
        for segment in info.segments where segment.marker == 0xE1 {
            let start = segment.bodyOffset
            guard start >= 4, start + segment.bodyLength <= bytes.count else { continue }
            let body = bytes[start..<start + segment.bodyLength]
            guard body.starts(with: signature) else { continue }
            kept += bytes[(start - 4)..<(start + segment.bodyLength)]
        }
        guard !kept.isEmpty, jpeg.count > 4 else { return jpeg }
        // After the SOI, and after an APP0 JFIF that follows it.
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count > 6 {
            at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        }
        return Array(jpeg[..<at]) + kept + Array(jpeg[at...])
    }
}
