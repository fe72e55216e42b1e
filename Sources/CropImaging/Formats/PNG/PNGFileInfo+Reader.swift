import CropGeometry

extension PNGFileInfo: FormatReader {
    /// Always: PNG has no lossy coding.
    func losslessCoding(in input: ImageInput) -> String? { "PNG" }

    static var format: ImageFormat { .png }
    static var signatureLength: Int { 4 }

    static func matches(signature head: [UInt8]) -> Bool {
        head.starts(with: [137, 80, 78, 71])
    }

    /// A PNG's image data CRCs are not read here: every decode checks them,
    /// on another thread while it runs (reading a 30 MB file's image data
    /// takes about 8 ms), and fails on a bad one.
    static func open(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self {
        try read(input, limits: limits, deferringDataCRCs: true)
    }

    /// The size as the file declares it.
    public var storedSize: PixelSize<StoredPixels> { PixelSize(width: width, height: height) }
    /// 1: PNG has no orientation of its own.
    public var orientation: EXIFOrientation { .up }
    /// The file's own colour type and bit depth.
    public var pixelFormat: PixelFormat { PixelFormat(colorType: colorType, bitDepth: bitDepth) }

    func decode(
        _ rect: PixelRect<StoredPixels>, of source: ImageSource, lenient: Bool,
        rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try whileCheckingCRCs(in: source.input) { () throws(ImagingError) in
            try PNGDecoder.decode(
                source.input, info: self, rect: rect, limits: source.limits,
                inflater: source.inflater, rows: rows)
        }
    }

    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed {
        var need = MemoryNeed()
        let bytesPerPixel = colorType.channels * (bitDepth == 16 ? 2 : 1)
        if interlaced, rect.width < width {
            need.add(
                saturatingProduct(rect.height, width, bytesPerPixel),
                "the interlaced crop's full-width rows")
        }
        // An interlaced crop is whole before its first row is final.
        if !streamed || interlaced {
            need.add(saturatingProduct(rect.width, rect.height, bytesPerPixel), "the decoded crop")
        }
        return need
    }

    func leakFindings(in input: ImageInput) throws(ImagingError) -> [LeakFinding] {
        try LeakCheck.pngFindings(self, input: input)
    }

    /// The XMP packet of an uncompressed `iTXt` chunk's data (keyword
    /// `XML:com.adobe.xmp`, flag 0, method, then language and translated
    /// keyword, each ended by NUL), or `nil` for another text.
    static func xmpPacket(inITXt data: [UInt8]) -> ArraySlice<UInt8>? {
        guard data.starts(with: Array("XML:com.adobe.xmp\0\0".utf8)) else { return nil }
        var at = 19
        for _ in 0..<2 {
            while at < data.count, data[at] != 0 { at += 1 }
            at += 1
        }
        return at < data.count ? data[at...] : nil
    }

    func metadata(in input: ImageInput) throws(ImagingError) -> ImageMetadata {
        var metadata = ImageMetadata()
        try LeakCheck.forEachPNGChunk(in: input, upTo: 16 << 20, except: "IDAT") { type, data in
            if type == "eXIf" {
                metadata.exif.append(data)
            } else if type == "iTXt", let packet = Self.xmpPacket(inITXt: data) {
                metadata.xmp.append(String(decoding: packet, as: UTF8.self))
            }
        }
        metadata.iccProfile = carriedChunks.first(where: { $0.type == "iCCP" }).flatMap {
            ICCProfile.profile(fromICCP: $0)
        }
        return metadata
    }

    /// The carried chunks as they are (a PNG output takes them whole), the
    /// profile for a writer of another format, and the EXIF (`eXIf`) and
    /// XMP (`iTXt`) cleaned for the upright crop as every format's are: a
    /// PNG output carries them as chunks again, another format in its own
    /// places.
    func cleanedMetadata(
        in input: ImageInput, size: PixelSize<StoredPixels>, policy: MetadataPolicy
    )
        throws(ImagingError) -> CleanedMetadata
    {
        var cleaned = CleanedMetadata()
        if let iccp = carriedChunks.first(where: { $0.type == "iCCP" }),
            let profile = ICCProfile.profile(fromICCP: iccp)
        {
            cleaned.iccProfile = profile
            cleaned.iccOrigin = "iCCP"
        }
        var dropped = droppedChunkTypes
        var chunks = carriedChunks
        if dropped.contains("eXIf") || dropped.contains("iTXt") {
            // The one metadata model: the first EXIF block and XMP packet,
            // each cleaned by the route every format's takes.
            let read = try metadata(in: input)
            let exif = dropped.contains("eXIf") ? read.exif.first : nil
            let xmp = dropped.contains("iTXt") ? read.xmp.first : nil
            for (type, block) in [("eXIf", exif != nil), ("iTXt", xmp != nil)] where block {
                if let at = dropped.firstIndex(of: type) { dropped.remove(at: at) }
            }
            cleaned.cleanUpright(
                exif: exif, xmp: xmp.map { Array($0.utf8) }, vocabulary: .png, size: size,
                policy: policy)
            if let tiff = cleaned.exif { chunks.append(PNGChunk(type: "eXIf", data: tiff)) }
            if let packet = cleaned.xmp { chunks.append(Self.xmpChunk(packet)) }
        }
        cleaned.native = PNGNativeMetadata(chunks: chunks, dropped: dropped)
        // Each chunk a crop does not carry, named with why.
        for type in dropped {
            let reason: String
            switch type {
            case "caBX":
                cleaned.entries.append(
                    MetadataEntry(
                        segment: ContentCredentials.segment("caBX chunk"), action: .dropped,
                        reason: ContentCredentials.reason))
                continue
            case "iCCP" where chunkProblems["iCCP"] != nil:
                reason = "it \(chunkProblems["iCCP"] ?? "")"
            case "eXIf":
                reason = "a second EXIF block: a PNG holds one"
            case "iTXt", "tEXt", "zTXt":
                reason =
                    "text other than the first XMP packet (comments, a second packet) is not carried: dropped, not kept stale"
            default:
                reason = "an ancillary chunk a crop does not carry"
            }
            cleaned.entries.append(
                MetadataEntry(segment: "\(type) chunk", action: .dropped, reason: reason))
        }
        return cleaned
    }

    /// An XMP packet as PNG holds it: an uncompressed `iTXt` chunk with
    /// the keyword `XML:com.adobe.xmp` and no language.
    static func xmpChunk(_ packet: String) -> PNGChunk {
        PNGChunk(
            type: "iTXt",
            data: Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(packet.utf8))
    }

    func summary(in input: ImageInput) -> ImageFileSummary {
        // The iCCP profile's own description, else the chunk's name.
        let profile =
            carriedChunks.first(where: { $0.type == "iCCP" }).map { chunk in
                ICCProfile.profile(fromICCP: chunk).flatMap(ICCProfile.description(of:))
                    ?? String(decoding: chunk.data.prefix(while: { $0 != 0 }), as: UTF8.self)
            } ?? chunkProblems["iCCP"].map { "(an iCCP chunk that \($0); a crop removes it)" }
        return ImageFileSummary(
            format: .png, storedSize: storedSize, orientation: .up,
            colorSpace: colorType.name, bitDepth: bitDepth, profile: profile,
            details: [
                .init("interlaced", .flag(interlaced)),
                .init("chunks", .list(carriedChunks.map(\.type))),
                .init("droppedChunks", label: "dropped chunks", .list(droppedChunkTypes)),
            ]
                + (droppedChunkTypes.contains("caBX")
                    ? [ContentCredentials.detail("caBX chunk", container: "caBX chunk", bytes: nil)]
                    : []),
            warnings: warnings)
    }

    /// Runs `body` while another thread checks the image data CRCs that
    /// the header read deferred. A bad CRC is thrown in preference to
    /// `body`'s own error, as a full read would have met it first; the
    /// caller commits its output only after this returns.
    private func whileCheckingCRCs<T>(
        in input: ImageInput, _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        guard !deferredCRCs.isEmpty else { return try body() }
        let outcome = CRCOutcome()
        let info = self
        let check = StageThread {
            do throws(ImagingError) {
                try info.checkDeferredCRCs(in: input)
            } catch {
                outcome.failure = error
            }
        }
        let result: Result<T, ImagingError>
        do throws(ImagingError) {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        check.join()
        if let failure = outcome.failure { throw failure }
        return try result.get()
    }
}

/// What the CRC thread found; written before the thread ends and read only
/// after it is joined, so no lock is needed.
private final class CRCOutcome: @unchecked Sendable {
    var failure: ImagingError?
}
