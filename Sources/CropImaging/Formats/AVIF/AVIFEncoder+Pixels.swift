internal import CImagingShims
import CropGeometry
import Foundation

/// AVIF written from pixels: the crop decoded from any source, turned
/// upright, and encoded whole by libheif's AV1 encoder (aom) at its exact
/// size (no clean aperture, which libavif's readers ignore), with the
/// source's metadata cleaned for it.
extension AVIFEncoder {
    /// Whether `plan` is written from pixels rather than by copying an
    /// AVIF source's tiles: always but for an unturned crop of an AVIF
    /// without alpha that holds at least one whole tile (or must be copied:
    /// `--lossless`, `--snap-to-blocks`).
    func writesFromPixels(_ plan: CropPlan) -> Bool {
        guard tiles.method == .automatic, !tiles.snapsToBlocks else { return false }
        guard plan.resampling == nil, let avif = plan.source.header as? AVIFFileInfo,
            avif.heif.alpha == nil
        else { return true }
        return CropPlan.heifTileCut(avif.heif, stored: plan.stored).tiles.allSatisfy(\.fix)
    }

    /// Encodes `image` (upright, 8-bit RGB or RGBA) with `plan`'s source's
    /// metadata cleaned for it, and writes it to `sink`.
    func writePixels(
        _ image: RasterImage, plan: CropPlan, warnings: [String], checksum: DataChecksum?,
        to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        var warnings = warnings
        if plan.source.pixelFormat.bitDepth > 8 {
            warnings.append(
                "\(plan.source.pixelFormat.bitDepth)-bit samples encoded at 8 bits (an AVIF from pixels is 8-bit)"
            )
        }
        let size = PixelSize<StoredPixels>(width: image.width, height: image.height)
        let metadata = try plan.source.reader.cleanedMetadata(
            in: plan.source.input, size: size, policy: plan.placing(self.metadata))
        warnings += metadata.warnings
        var entries = metadata.entries(as: .avif, written: metadata.kinds)
        let jobs = companionJobs(plan)
        if let avif = plan.source.header as? AVIFFileInfo, !jobs.isEmpty {
            let written = try writeWithCompanions(
                image, plan: plan, source: avif.heif, jobs: jobs, metadata: metadata, to: sink)
            written.companions.apply(to: &entries)
            warnings += written.companions.warnings
            return report(
                plan, bytes: written.bytes, image: image, warnings: warnings, checksum: checksum,
                entries: entries)
        }
        let bytes = try Self.encodeWhole(
            image, quality: quality, icc: metadata.iccProfile, exif: metadata.exif,
            xmp: metadata.xmp.map { Array($0.utf8) })
        try sink.write(bytes[...])
        return report(
            plan, bytes: bytes.count, image: image, warnings: warnings, checksum: checksum,
            entries: entries)
    }

    /// The report of an AVIF written from pixels.
    private func report(
        _ plan: CropPlan, bytes: Int, image: RasterImage, warnings: [String],
        checksum: DataChecksum?, entries: [MetadataEntry]
    ) -> CropReport {
        CropReport(
            output: nil, bytes: bytes, size: plan.outputSize, format: Self.name,
            warnings: warnings, checksum: checksum,
            details: HEIFWriteReport(
                grid: "one image of \(image.width)x\(image.height), encoded from pixels",
                copiedTiles: 0, reencodedTiles: 0, copiedBytes: 0, cleanAperture: nil,
                transforms: [], notes: [], metadata: entries, encodedWholeAt: quality,
                kind: Self.displayName,
                tiles: .init(columns: 1, rows: 1, tileWidth: image.width, tileHeight: image.height))
        )
    }

    /// The companions an AVIF crop from pixels cuts beside its photo: an
    /// AVIF source's, unless they are dropped. A resized crop's are
    /// resampled with it (``CropPlan/companionCrop``), a straightened one's
    /// sampled at its own positions.
    func companionJobs(_ plan: CropPlan) -> [CropPlan.CompanionJob] {
        guard let avif = plan.source.header as? AVIFFileInfo else { return [] }
        return CropPlan.companionJobs(avif.heif, encoder: tiles)
    }

    /// Writes `image` (the crop, upright) as the primary of an AVIF with
    /// `source`'s companions cut beside it by the companion rule, as a
    /// tile-copying crop writes them (``CropPlan/writeHEIFCompanions``):
    /// the photo encoded whole and the companions' cuts side by side, one
    /// list of jobs; then one file, the photo's EXIF and XMP as items.
    /// The companions are cut as stored, so a turned source's crop is
    /// written as stored too: the photo turned back and given the source's
    /// `irot` and `imir`, as each companion is. Photo and companions then
    /// share one turn, as the source's do (a companion turned unlike its
    /// photo is not cut), and a crop of the crop cuts them again.
    private func writeWithCompanions(
        _ image: RasterImage, plan: CropPlan, source: HEIFFileInfo,
        jobs: [CropPlan.CompanionJob], metadata: CleanedMetadata, to sink: some ByteSink
    ) throws(ImagingError) -> (bytes: Int, companions: CropPlan.HEIFCompanionsWritten) {
        let (encoder, quality, icc) = (tiles, quality, metadata.iccProfile)
        let stored = plan.orientation == .up ? image : image.oriented(plan.orientation.inverse)
        let transforms = HEIFFileWriter.transformBoxes(plan.orientation).boxes
        let work = try concurrentResults(jobs.count + 1) { n throws(ImagingError) -> PixelsWork in
            if n < jobs.count {
                return .companion(
                    plan.prepare(jobs[n], of: source, encoder: encoder, exactSize: true))
            }
            return .photo(
                try Self.encodeWhole(stored, quality: quality, icc: icc, exif: nil, xmp: nil))
        }
        var photo: [UInt8] = []
        var prepared: [Result<CropPlan.HEIFCompanionCut, ImagingError>] = []
        for result in work {
            switch result {
            case .photo(let bytes): photo = bytes
            case .companion(let cut): prepared.append(cut)
            }
        }
        // The photo as libheif wrote it: one coded image, its configuration,
        // colour and pixel boxes, carried into the file written here.
        let encoded = ImageInput(bytes: photo, name: "the encoded crop")
        let coded = try HEIFFileInfo.read(encoded, limits: DecodeLimits()).layout.tiles[0]
        var data: [UInt8] = []
        for extent in coded.extents {
            data += try encoded.read(at: extent.lowerBound, count: extent.count, format: .avif)
        }
        var writer = HEIFFileWriter(codec: .av1)
        let primary = writer.addItem(
            type: HEIFCodec.av1.itemType, hidden: false,
            properties: [
                (coded.configuration, true),
                (HEIFFileWriter.ispe(width: stored.width, height: stored.height), false),
            ] + coded.colourBoxes.map { ($0, false) } + (coded.pixi.map { [($0, false)] } ?? [])
                + transforms.map { ($0, true) })
        writer.setData(primary, .bytes(data))
        writer.primary = primary
        let companions = plan.writeHEIFCompanions(
            source, prepared: prepared, encoder: tiles, primary: primary, transforms: transforms,
            into: &writer)
        writer.addDescriptions(
            exif: metadata.exif, xmp: metadata.xmp, of: [primary] + companions.describedWithPhoto)
        let bytes = try writer.write(to: sink, input: plan.source.input)
        return (bytes, companions)
    }

    /// 8-bit RGB or RGBA pixels encoded as an AVIF by libheif's AV1 encoder
    /// (or, with `codec` HEVC, a HEIC by x265) at `quality` with
    /// ``HEIFEncoder/parameters(for:)``, 4:2:0, with the metadata given:
    /// the whole file.
    static func encodeWhole(
        _ image: RasterImage, quality: Int, icc: [UInt8]?, exif: [UInt8]?, xmp: [UInt8]?,
        codec: HEIFCodec = .av1
    ) throws(ImagingError) -> [UInt8] {
        guard HEIFEncoder.canEncodeTiles else {
            throw .unsupported(format: .avif, detail: "this libheif cannot encode \(codec.name)")
        }
        var request = ck_heif_encode_request()
        request.compression = codec == .av1 ? 4 : 1
        request.width = UInt32(image.width)
        request.height = UInt32(image.height)
        request.bit_depth = 8
        request.chroma = 1
        request.quality = UInt32(quality)
        request.interleaved_channels = UInt32(image.colorType.channels)
        request.plane_width = (UInt32(image.width), 0, 0)
        request.plane_height = (UInt32(image.height), 0, 0)
        var status: Int32 = 0
        var message = ""
        let icc = icc ?? []
        let exif = exif ?? []
        let xmp = xmp ?? []
        let encoded: [UInt8]? = try HEIFEncoder.withParameterStrings(
            for: codec, encoding: codec == .av1 ? "an AVIF" : "a HEIC"
        ) { parameters, count in
            request.parameters = parameters
            request.parameter_count = count
            return image.samples.withUnsafeBufferPointer { pixels in
                icc.withUnsafeBufferPointer { iccBytes in
                    exif.withUnsafeBufferPointer { exifBytes in
                        xmp.withUnsafeBufferPointer { xmpBytes in
                            request.planes = (pixels.baseAddress, nil, nil)
                            if !icc.isEmpty {
                                request.icc = iccBytes.baseAddress
                                request.icc_size = icc.count
                            }
                            if !exif.isEmpty {
                                request.exif = exifBytes.baseAddress
                                request.exif_size = exif.count
                            }
                            if !xmp.isEmpty {
                                request.xmp = xmpBytes.baseAddress
                                request.xmp_size = xmp.count
                            }
                            status = ck_heif_encode_planes(&request)
                            message = cMessage(request.message)
                            guard status == CK_STATUS_OK, let file = request.file else {
                                return nil
                            }
                            defer { ck_free(file) }
                            return Array(
                                UnsafeBufferPointer(start: file, count: request.file_size))
                        }
                    }
                }
            }
        }
        guard let encoded else {
            if status == CK_STATUS_OUT_OF_MEMORY {
                throw .outOfMemory(detail: "encoding an AVIF: \(message)")
            }
            throw .encodeFailed(format: "avif", detail: message)
        }
        return encoded
    }
}

/// One job of an AVIF crop from pixels with companions: the photo encoded
/// whole, or a companion's cut.
private enum PixelsWork: Sendable {
    case photo([UInt8])
    case companion(Result<CropPlan.HEIFCompanionCut, ImagingError>)
}
