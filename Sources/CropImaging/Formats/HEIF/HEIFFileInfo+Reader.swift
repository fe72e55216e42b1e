import CropGeometry
import Foundation

/// A header whose file is a HEIF container (a HEIC's, an AVIF's): what the
/// tile-copying writer reads its tiles from.
protocol HEIFContainerHeader: ImageHeader {
    /// The container's reading.
    var heif: HEIFFileInfo { get }
}

extension HEIFFileInfo: HEIFContainerHeader {
    /// Itself.
    var heif: HEIFFileInfo { self }

    /// The codec of its coded images.
    public var codec: HEIFCodec { layout.tiles.first?.codec ?? .hevc }
}

extension HEIFFileInfo: FormatReader {
    /// An auxiliary image whose role names an HDR gain map (Apple's,
    /// Samsung's), or a `tmap` item (ISO 21496-1).
    func gainMap(in input: ImageInput) -> String? {
        if let map = auxiliaryImages.first(where: { $0.role.lowercased().contains("gainmap") }) {
            return "an HDR gain map auxiliary image (\(map.role))"
        }
        if otherImages.contains(where: { $0.type == "tmap" }) {
            return "an ISO 21496-1 gain map (a tmap item)"
        }
        return nil
    }

    /// Apple's HDR gain map, cut for a JPEG crop in Apple's JPEG form
    /// (``appleGainMapForJPEG(in:stored:)``).
    func jpegGainMap(in input: ImageInput, stored: PixelRect<StoredPixels>)
        throws(ImagingError) -> JPEGGainMapCut?
    {
        try appleGainMapForJPEG(in: input, stored: stored)
    }

    /// The first auxiliary HDR gain map, decoded whole (the companion rule's
    /// cut of the whole photo is the whole map): its luma plane.
    func gainMapImage(in input: ImageInput) throws(ImagingError) -> RasterImage? {
        guard let map = companions.first(where: { $0.role.hasSuffix("hdrgainmap") }) else {
            return nil
        }
        if let layout = map.layout, layout.tiles[0].bitDepth != 8 {
            throw .unsupported(format: .heif, detail: "its gain map is not 8-bit")
        }
        let whole = PixelRect<StoredPixels>(x: 0, y: 0, width: width, height: height)
        let cut = try eightBitCut(map, stored: whole, input: input)
        return RasterImage(
            width: cut.size.width, height: cut.size.height, colorType: .gray, bitDepth: 8,
            samples: cut.planes[0])
    }

    /// The first auxiliary HDR gain map's pixels.
    func gainMapPixels(in input: ImageInput) -> Int {
        companions.first { $0.role.hasSuffix("hdrgainmap") }.map {
            saturatingProduct($0.width, $0.height, 1)
        } ?? 0
    }

    /// Every tile of the primary image coded losslessly: HEVC whose
    /// picture parameter sets enable transquant bypass (x265's lossless
    /// mode), or AV1 whose first frame has quantizer index 0 and no deltas
    /// (``AV1Headers``). Each tile's first 4 KiB are read for AV1.
    func losslessCoding(in input: ImageInput) -> String? {
        guard let codec = layout.tiles.first?.codec else { return nil }
        for tile in layout.tiles {
            switch tile.codec {
            case .hevc:
                guard HEVCSequenceInfo.transquantBypass(hvcC: tile.configuration) == true else {
                    return nil
                }
            case .av1:
                guard let first = tile.extents.first,
                    let head = try? input.read(
                        at: first.lowerBound, count: min(first.count, 4096), format: .heif),
                    AV1Headers.isLossless(configuration: tile.configuration, data: head) == true
                else { return nil }
            }
        }
        return codec == .hevc ? "HEVC with transquant bypass" : "AV1 at quantizer 0"
    }

    static var format: ImageFormat { .heif }
    static var signatureLength: Int { 8 }

    /// An ISOBMFF file: a `ftyp` box first.
    static func matches(signature head: [UInt8]) -> Bool {
        head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8)
    }

    static func open(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self {
        try read(input, limits: limits)
    }

    /// The size after the clean aperture, before `irot` and `imir`.
    public var storedSize: PixelSize<StoredPixels> { PixelSize(width: width, height: height) }
    /// RGB or RGBA, 8-bit, or 16-bit above 8 bits.
    public var pixelFormat: PixelFormat {
        let format = HEIFPixelFormat(self)
        return PixelFormat(colorType: format.colorType, bitDepth: format.bitDepth)
    }

    func decode(
        _ rect: PixelRect<StoredPixels>, of source: ImageSource, lenient: Bool,
        rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try HEIFDecoder.decode(
            source.input, info: self, rect: rect, limits: source.limits, rows: rows)
    }

    /// The tiles being decoded, in libheif and libde265: each tile's YCbCr
    /// planes, the decoder's reference picture and the converted pixels
    /// (about 6 bytes a pixel, 12 above 8 bits), on as many threads as
    /// there are cores and touched tiles, each with its coded bytes read
    /// whole; and the crop, assembled whole.
    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed {
        var need = MemoryNeed()
        let touched = layout.tiles(
            touching: PixelRect(
                x: rect.x + origin.x, y: rect.y + origin.y, width: rect.width,
                height: rect.height))
        let threads = max(1, min(activeCores, touched.count))
        let coded = touched.map { layout.tiles[$0].byteCount }.max() ?? 0
        let tile =
            saturatingProduct(layout.tileWidth, layout.tileHeight, bitDepth > 8 ? 12 : 6) + coded
        need.add(saturatingProduct(tile, threads, 1), "the tiles being decoded")
        need.add(
            saturatingProduct(rect.width, rect.height, HEIFPixelFormat(self).bytesPerPixel),
            "the decoded crop")
        return need
    }

    func leakFindings(in input: ImageInput) throws(ImagingError) -> [LeakFinding] {
        try LeakCheck.heifFindings(self, input: input)
    }

    func metadata(in input: ImageInput) throws(ImagingError) -> ImageMetadata {
        ImageMetadata(exif: exif, xmp: xmp, iccProfile: iccProfile)
    }

    /// The orientation and the transforms that make it.
    var reportDetails: [ImageFileSummary.Detail] {
        [
            .init("orientation", .number(orientation.rawValue)),
            .init("transforms", Self.transformEntries(transforms)),
        ]
    }

    /// The EXIF and XMP items cleaned, the profile (or the nclx colour when
    /// there is none), and the bit depth widened samples came from.
    func cleanedMetadata(
        in input: ImageInput, size: PixelSize<StoredPixels>, policy: MetadataPolicy
    )
        throws(ImagingError) -> CleanedMetadata
    {
        let metadata = HEIFMetadata.clean(self, size: size, orientation: .up, policy: policy)
        var cleaned = CleanedMetadata(
            exif: metadata.exif, xmp: metadata.xmp, iccProfile: metadata.iccProfile,
            entries: metadata.entries, warnings: metadata.warnings)
        if metadata.iccProfile == nil, let nclx, nclx.primaries < 256, nclx.transfer < 256 {
            cleaned.cicp = (UInt8(nclx.primaries), UInt8(nclx.transfer))
        }
        if HEIFPixelFormat(self).scaleBits > 0 { cleaned.significantBits = bitDepth }
        return cleaned
    }

    func summary(in input: ImageInput) -> ImageFileSummary {
        ImageFileSummary(
            format: .heif, storedSize: storedSize, orientation: orientation,
            colorSpace: "YCbCr \(chroma)\(alpha == nil ? "" : " + alpha")",
            bitDepth: bitDepth,
            profile: ICCProfile.summary(iccProfile, problem: profileProblem).map {
                $0 + (iccOnTiles ? " (on the tiles)" : "")
            },
            details: HEIFFileInfo.details(self)
                + (contentCredentials.map {
                    [
                        ContentCredentials.detail(
                            "a top-level uuid box, \($0) bytes", container: "uuid box", bytes: $0)
                    ]
                } ?? []),
            warnings: warnings)
    }
}
