import CropGeometry
import CropRecords

extension JPEGFileInfo: FormatReader {
    static var format: ImageFormat { .jpeg }
    static var signatureLength: Int { 2 }

    static func matches(signature head: [UInt8]) -> Bool { head.starts(with: [0xFF, 0xD8]) }

    static func open(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self {
        try read(input, limits: limits)
    }

    /// The size as the frame header declares it.
    public var storedSize: PixelSize<StoredPixels> { PixelSize(width: width, height: height) }
    /// 8-bit gray, or RGB (YCbCr, RGB, CMYK and YCCK all decode to RGB).
    public var pixelFormat: PixelFormat {
        PixelFormat(colorType: components == 1 ? .gray : .rgb, bitDepth: 8)
    }

    /// Whether the whole frame's coefficients are held while decoding: a
    /// progressive file, or one whose first scan lacks a component.
    var holdsFrameCoefficients: Bool { progressive || firstScanComponents < components }

    func decode(
        _ rect: PixelRect<StoredPixels>, of source: ImageSource, lenient: Bool,
        rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try JPEGDecoder.decode(
            source.input, info: self, rect: rect, limits: source.limits, lenient: lenient,
            rows: rows)
    }

    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed {
        var need = MemoryNeed()
        if holdsFrameCoefficients {
            need.add(
                saturatingProduct(coefficientBlocks, 128, 1),
                "the \(progressive ? "progressive" : "multi-scan") frame's coefficients")
        }
        if !streamed {
            need.add(
                saturatingProduct(rect.width, rect.height, components == 1 ? 1 : 3),
                "the decoded crop")
        }
        return need
    }

    var losslessBlockGrid: PixelSize<StoredPixels>? { blockGrid }

    /// An MPF secondary image that says it is a gain map (Ultra HDR's,
    /// Apple's).
    func gainMap(in input: ImageInput) -> String? {
        (try? GainMap.find(self, input: input)) == nil ? nil : "an MPF gain map"
    }

    var shrinksOnLoad: Bool { true }

    func decodeShrunk(
        _ rect: PixelRect<StoredPixels>, shrink: Int, of source: ImageSource, lenient: Bool
    ) throws(ImagingError) -> DecodedImage {
        try JPEGDecoder.decode(
            source.input, info: self, rect: rect, limits: source.limits, lenient: lenient,
            rows: nil, scaleDenominator: shrink)
    }

    func leakFindings(in input: ImageInput) throws(ImagingError) -> [LeakFinding] {
        try LeakCheck.jpegFindings(self, input: input)
    }

    func metadata(in input: ImageInput) throws(ImagingError) -> ImageMetadata {
        var metadata = ImageMetadata()
        for segment in segments where segment.marker == 0xE1 {
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            if body.starts(with: JPEGMetadata.exifSignature) {
                metadata.exif.append(Array(body[6...]))
            } else if body.starts(with: JPEGMetadata.xmpSignature) {
                metadata.xmp.append(
                    String(decoding: body[JPEGMetadata.xmpSignature.count...], as: UTF8.self))
            }
        }
        metadata.iccProfile = iccProfile
        return metadata
    }

    /// The EXIF orientation, and the colour profile's description.
    var reportDetails: [ImageFileSummary.Detail] {
        [.init("orientation", .number(orientation.rawValue))]
            + (iccProfile.map {
                [.init("profile", .text(ICCProfile.description(of: $0) ?? "(no description)"))]
            } ?? [])
    }

    /// The segments cleaned for new pixels (JPEGMetadata's rules: the
    /// Adobe transform made true, a CMYK profile dropped), as they are for
    /// a JPEG writer, and their EXIF, XMP and profile for any other.
    func cleanedMetadata(
        in input: ImageInput, size: PixelSize<StoredPixels>, policy: MetadataPolicy
    )
        throws(ImagingError) -> CleanedMetadata
    {
        let metadata = try JPEGMetadata.clean(
            self, input: input, size: size, orientation: .up, policy: policy
        ).forReencodedPixels(of: self)
        let profileDropped = metadata.entries.contains {
            $0.segment.hasSuffix("ICC_PROFILE") && $0.action == .dropped
        }
        return CleanedMetadata(
            exif: metadata.exif, xmp: metadata.xmp,
            iccProfile: components == 4 || profileDropped ? nil : iccProfile,
            entries: metadata.entries, warnings: metadata.warnings,
            native: JPEGNativeMetadata(segments: metadata.segments))
    }

    func summary(in input: ImageInput) -> ImageFileSummary {
        let sampling = zip(horizontalSampling, verticalSampling).map {
            ImageFileSummary.Detail.Entry(
                "\($0)x\($1)",
                .object([.init("horizontal", .number($0)), .init("vertical", .number($1))]))
        }
        return ImageFileSummary(
            format: .jpeg, storedSize: storedSize, orientation: orientation,
            colorSpace: colorSpace, bitDepth: 8,
            profile: ICCProfile.summary(iccProfile, problem: profileProblem),
            details: [.init("frame", .text(frame)), .init("sampling", .entries(sampling))]
                + companionDetails(in: input) + credentialDetails(in: input)
                + (scanWork.map { work in
                    [
                        .init("scans", .number(work.scans)),
                        .init("frameBlocks", label: "frame blocks", .number(work.frameBlocks)),
                        .init("scanPasses", label: "scan passes", .measure(work.passes)),
                    ]
                } ?? []),
            warnings: warnings)
    }
}

extension JPEGFileInfo {
    /// The MPF gain map (not a stereo pair's other eye), decoded.
    func gainMapImage(in input: ImageInput) throws(ImagingError) -> RasterImage? {
        guard let found = try GainMap.find(self, input: input), !found.isEye else { return nil }
        return try ImageSource(ImageInput(bytes: found.bytes, name: "gain map")).decode().image
    }

    /// `C2PA`: the APP11 segments that hold C2PA content credentials, if
    /// any.
    func credentialDetails(in input: ImageInput) -> [ImageFileSummary.Detail] {
        let held = segments.filter { segment in
            segment.marker == 0xEB
                && (try? input.read(
                    at: segment.bodyOffset, count: min(segment.bodyLength, 4096), format: .jpeg))
                    .map(ContentCredentials.holdsManifest) == true
        }
        guard !held.isEmpty else { return [] }
        let bytes = held.reduce(0) { $0 + $1.bodyLength }
        return [
            ContentCredentials.detail(
                "\(held.count) APP11 segment(s), \(bytes) bytes", container: "APP11",
                count: held.count, bytes: bytes)
        ]
    }

    /// The MPF gain map's pixels, read from its header.
    func gainMapPixels(in input: ImageInput) -> Int {
        guard let found = try? GainMap.find(self, input: input), !found.isEye,
            let map = try? ImageSource(ImageInput(bytes: found.bytes, name: "gain map"))
        else { return 0 }
        return saturatingProduct(map.storedSize.width, map.storedSize.height, 1)
    }

    /// `companions`: the MPF gain map or a stereo pair's other eye, and
    /// Google's depth map, each on its grid, when there are any.
    func companionDetails(in input: ImageInput) -> [ImageFileSummary.Detail] {
        var entries: [ImageFileSummary.Detail.Entry] = []
        let crop = "cut with a JPEG crop, resampled with a turned or resized one"
        if let found = try? GainMap.find(self, input: input, eyes: true),
            let map = try? ImageSource(ImageInput(bytes: found.bytes, name: "gain map"))
        {
            entries.append(
                CompanionListing.entry(
                    found.isEye ? "the other eye (MPF)" : "HDR gain map (MPF)",
                    kind: found.isEye ? "otherEye" : "gainMap", type: "MPF",
                    size: map.storedSize, photo: storedSize, outputs: ["jpeg": .cut],
                    resampled: true, crop: crop))
        }
        if let png = try? GoogleDepth.find(self, input: input),
            let map = try? ImageSource(ImageInput(bytes: png, name: "depth map"))
        {
            entries.append(
                CompanionListing.entry(
                    "depth map (GDepth:Data)", kind: "depthMap", type: "GDepth:Data",
                    size: map.storedSize, photo: storedSize, outputs: ["jpeg": .cut],
                    resampled: true, crop: crop))
        }
        return entries.isEmpty ? [] : [.init("companions", .entries(entries))]
    }
}
