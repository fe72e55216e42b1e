import CropGeometry
import CropRecords

extension WebPFileInfo: FormatReader {
    /// A VP8L bitstream; VP8 is lossy.
    func losslessCoding(in input: ImageInput) -> String? {
        coding == .lossless ? "VP8L" : nil
    }

    static var format: ImageFormat { .webp }
    static var displayName: String { "WebP" }
    static var signatureLength: Int { 12 }

    /// A RIFF form of type WEBP.
    static func matches(signature head: [UInt8]) -> Bool {
        head.count >= 12 && head.starts(with: Array("RIFF".utf8))
            && Array(head[8..<12]) == Array("WEBP".utf8)
    }

    static func open(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self {
        try read(input, limits: limits)
    }

    /// The size as the bitstream codes it.
    public var storedSize: PixelSize<StoredPixels> { PixelSize(width: width, height: height) }
    /// 8-bit RGB, or RGBA with alpha.
    public var pixelFormat: PixelFormat {
        PixelFormat(colorType: hasAlpha ? .rgba : .rgb, bitDepth: 8)
    }

    func decode(
        _ rect: PixelRect<StoredPixels>, of source: ImageSource, lenient: Bool,
        rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try WebPDecoder.decode(
            source.input, info: self, rect: rect, limits: source.limits, rows: rows)
    }

    /// The image's chunks read whole; libwebp's own buffers (a lossy
    /// image's macroblock rows across its width; a lossless one's ARGB
    /// pixels of the whole image, which its decoder allocates whatever the
    /// crop); and the crop, held whole, decoded apart with a margin first
    /// where libwebp cannot decode it in place (a lossy image, an odd
    /// corner).
    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed {
        var need = MemoryNeed()
        let channels = hasAlpha ? 4 : 3
        need.add(bitstream.size + (alphaChunk?.size ?? 0), "the image's chunks")
        if coding == .lossy {
            need.add(saturatingProduct(width, 64, 3), "libwebp's macroblock rows")
        } else {
            need.add(saturatingProduct(width, height, 5), "libwebp's ARGB pixels")
        }
        need.add(saturatingProduct(rect.width, rect.height, channels), "the decoded crop")
        if coding == .lossy || rect.x % 2 == 1 || rect.y % 2 == 1 {
            // A filtered alpha plane's rows are decoded from the first.
            let rows = alphaFiltered ? rect.y + rect.height + 2 : rect.height + 6
            need.add(
                saturatingProduct(rect.width + 6, rows, channels),
                "the crop decoded with its margin")
        }
        return need
    }

    func leakFindings(in input: ImageInput) throws(ImagingError) -> [LeakFinding] {
        try LeakCheck.webpFindings(self, input: input)
    }

    func metadata(in input: ImageInput) throws(ImagingError) -> ImageMetadata {
        ImageMetadata(exif: exif, xmp: xmp, iccProfile: iccProfile)
    }

    /// The orientation and where it came from.
    var reportDetails: [ImageFileSummary.Detail] {
        [
            .init("orientation", .number(orientation.rawValue)),
            .init("coding", .text(coding.rawValue)),
        ]
    }

    /// The EXIF and XMP chunks cleaned for an upright crop, and the
    /// profile.
    func cleanedMetadata(
        in input: ImageInput, size: PixelSize<StoredPixels>, policy: MetadataPolicy
    )
        throws(ImagingError) -> CleanedMetadata
    {
        var cleaned = CleanedMetadata()
        if let iccProfile {
            cleaned.iccProfile = iccProfile
            cleaned.iccOrigin = "ICCP"
            cleaned.entries.append(
                MetadataEntry(
                    segment: MetadataVocabulary.webp.iccProfile, action: .kept,
                    reason: "the colour profile", kind: .iccProfile))
        } else if let profileProblem {
            cleaned.entries.append(
                MetadataEntry(
                    segment: MetadataVocabulary.webp.iccProfile, action: .dropped,
                    reason: profileProblem, kind: .iccProfile))
        }
        cleaned.cleanUpright(
            exif: exif, xmp: xmp, vocabulary: .webp, size: size, policy: policy)
        let known: Set<String> = ["VP8X", "VP8 ", "VP8L", "ALPH", "ICCP", "EXIF", "XMP "]
        for chunk in chunks where !known.contains(chunk.type) {
            let credentials = chunk.type == "C2PA"
            cleaned.entries.append(
                MetadataEntry(
                    segment: credentials
                        ? ContentCredentials.segment("\"C2PA\" chunk") : "\"\(chunk.type)\" chunk",
                    action: .dropped,
                    reason: credentials
                        ? ContentCredentials.reason : "an unknown chunk, which could hold anything")
            )
        }
        return cleaned
    }

    func summary(in input: ImageInput) -> ImageFileSummary {
        ImageFileSummary(
            format: .webp, storedSize: storedSize, orientation: orientation,
            colorSpace: coding == .lossy
                ? "YCbCr 4:2:0\(hasAlpha ? " + alpha" : "")" : (hasAlpha ? "ARGB" : "RGB"),
            bitDepth: 8,
            profile: ICCProfile.summary(iccProfile, problem: profileProblem),
            details: [
                .init(
                    "coding",
                    .typed(
                        .string(coding.rawValue),
                        text: coding == .lossy ? "VP8 (lossy)" : "VP8L (lossless)")),
                .init("extended", label: "extended format (VP8X)", .flag(extended)),
                .init("alpha", .flag(hasAlpha)),
                .init("chunks", .list(chunks.map { $0.type.trimmingSpaces })),
            ]
                + chunks.filter { $0.type == "C2PA" }.map {
                    ContentCredentials.detail(
                        "\"C2PA\" chunk, \($0.size) bytes", container: "C2PA chunk",
                        bytes: $0.size)
                }
                + (estimatedQuality.map {
                    [.init("estimatedQuality", label: "estimated quality", .number($0))]
                } ?? []),
            warnings: warnings)
    }
}

extension String {
    /// The FourCC without its padding spaces ("VP8 " is "VP8").
    fileprivate var trimmingSpaces: String {
        String(self.reversed().drop(while: { $0 == " " }).reversed())
    }
}
