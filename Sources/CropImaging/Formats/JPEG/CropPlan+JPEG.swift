internal import CImagingShims
import CropGeometry
import Foundation

extension CropPlan {
    /// Whether this plan's JPEG crop is made in the DCT domain: the
    /// writer's strategy is a coefficient copy (a JPEG source, no quality
    /// asked for, the stored rect's top-left corner on its block grid).
    var isDCTDomainCrop: Bool {
        if case .coefficientCopy = strategy { return true }
        return false
    }

    /// The JPEG export: in the DCT domain where the rect allows it, else
    /// decoded and encoded again; the source's metadata cleaned.
    func exportJPEG(_ encoder: JPEGEncoder, to sink: some ByteSink) throws(ImagingError)
        -> CropReport
    {
        switch source.header {
        case let info as JPEGFileInfo:
            // The stored pixels are cropped and the EXIF orientation kept:
            // the crop displays as the rect seen, losslessly.
            let found =
                encoder.metadata.companions == .keep && !encoder.metadata.stripAll
                ? try GainMap.find(info, input: source.input, eyes: true) : nil
            if let found {
                return try withGainMap(found, info: info, encoder: encoder, to: sink)
            }
            return try withoutGainMap(info, encoder: encoder, dropped: nil, to: sink)
        default:
            var warnings: [String] = []
            // A HEIC's Apple gain map, cut and carried in Apple's JPEG form.
            var gainMap: JPEGGainMapCut?
            if encoder.metadata.companions == .keep, !encoder.metadata.stripAll {
                do throws(ImagingError) {
                    gainMap = try source.reader.jpegGainMap(in: source.input, stored: stored)
                } catch {
                    warnings.append("the HDR gain map was dropped: \(error.description)")
                }
            }
            let (markers, entries) = try resampledJPEGMetadata(
                encoder, warnings: &warnings, carriesGainMap: gainMap != nil)
            guard let gainMap else {
                return try encodeDecoded(
                    encoder, markers: markers, entries: entries, warnings: warnings, to: sink)
            }
            return try withAppleGainMap(
                gainMap, encoder: encoder, markers: markers, entries: entries, warnings: warnings,
                to: sink)
        }
    }

    /// The one route of a resampled JPEG, rendered in bands: each plan's
    /// renderer (``OverlappedRenderer``, on a thread of its own) renders a
    /// band of 16 output rows as soon as the region rows its samples read
    /// are there, cuts it to the ellipse and flattens it onto white at 8
    /// bits where the plan asks (``JPEGBandFlattener``), into the ring of
    /// its own encoder, which libjpeg drains on another thread: the output
    /// is encoded while it is made and never held whole. `feed` gives the
    /// renderers their region's rows (a decode in progress, or a region
    /// already decoded) and returns the decode's warnings. A single crop is
    /// the case of one plan.
    ///
    /// - Precondition: every plan writes JPEG and is resampled from a
    ///   region of direct colour type `colorType` at `bitDepth`, lying at
    ///   `origin` (in the grid shrunk by `scale`, the image's corner at
    ///   `offset`).
    static func ringResampledJPEGs(
        _ plans: [CropPlan], into sinks: [any ByteSink], region origin: PixelRect<ImagePixels>,
        colorType: ColorType, bitDepth: Int, scale: Int, offset: (x: Double, y: Double),
        feed: ([OverlappedRenderer]) throws(ImagingError) -> [String]
    ) throws(ImagingError) -> [CropReport] {
        // Everything that can fail comes first: no encoder thread starts
        // until every header is made.
        var parts:
            [(
                warnings: [String], entries: [MetadataEntry], quality: Int, markers: [UInt8],
                coding: ck_jpeg_coding, resampler: Resampler, flattener: JPEGBandFlattener
            )] = []
        var gainMaps: [ResampledGainMap?] = []
        for plan in plans {
            guard let encoder = plan.format.encoder(JPEGEncoder.self),
                let resample = plan.resampling
            else { preconditionFailure("a ring resample writes a resampled JPEG") }
            var warnings: [String] = []
            // The gain map resampled with the crop, made before any encoder
            // starts; one that cannot be is dropped and said so.
            var gainMap: ResampledGainMap?
            switch plan.resampledGainMap(encoder) {
            case .success(let map)?: gainMap = map
            case .failure(let error)?:
                warnings.append(
                    "the HDR gain map was dropped: \(error.description); the crop shows in standard dynamic range"
                )
            case nil: break
            }
            gainMaps.append(gainMap)
            let (markers, entries) = try plan.resampledJPEGMetadata(
                encoder, warnings: &warnings, resampledGainMap: gainMap)
            // JPEG has no transparency: where there is no image, white.
            var resampler = resample.resampler
            if resampler.fill == .transparent { resampler.fill = .rgb(255, 255, 255) }
            let flattener = JPEGBandFlattener(
                width: plan.outputSize.width, height: plan.outputSize.height,
                colorType: resampler.outputColorType(resample.crop, regionColorType: colorType),
                wide: bitDepth == 16, ellipse: resample.ellipse)
            var (quality, coding) = Self.resampledJPEGCoding(
                encoder, gray: flattener.outputChannels == 1)
            // Standard Huffman tables, as libvips and Pillow write by
            // default: optimized ones need every coefficient of the output
            // held at once (27 MB for 3000x3000), which streaming exists to
            // avoid; the file is a few percent larger. Outputs masked or
            // flattened keep the optimized tables they were written with
            // when they were rendered whole (a decision left open: making
            // them standard changes their bytes, not their pixels).
            if flattener.passesRowsThrough { coding.optimize = 0 }
            parts.append((warnings, entries, quality, markers, coding, resampler, flattener))
        }
        var rings: [RingJPEGEncode] = []
        var renderers: [OverlappedRenderer] = []
        let heldSinks = plans.map { _ in MemorySink() }
        for (index, plan) in plans.enumerated() {
            guard let resample = plan.resampling else {
                preconditionFailure("a ring resample has a resampling")
            }
            // A crop followed by its gain map is held until its size is
            // known, for the MPF index; the others stream to their sinks.
            let sink: any ByteSink = gainMaps[index] == nil ? sinks[index] : heldSinks[index]
            let ring = RingJPEGEncode(
                width: plan.outputSize.width, height: plan.outputSize.height,
                channels: parts[index].flattener.outputChannels, coding: parts[index].coding,
                markers: parts[index].markers, ringRows: 64, to: sink)
            rings.append(ring)
            renderers.append(
                OverlappedRenderer(
                    crop: resample.crop, resampler: parts[index].resampler, origin: origin,
                    scale: scale, offset: offset, regionColorType: colorType,
                    regionBitDepth: bitDepth, flattener: parts[index].flattener, ring: ring))
        }
        let decodeWarnings: [String]
        do throws(ImagingError) {
            decodeWarnings = try feed(renderers)
        } catch {
            for ring in rings { try? ring.finish(succeeded: false) }
            throw error
        }
        var reports: [CropReport] = []
        for index in plans.indices {
            try rings[index].finish(succeeded: renderers[index].completed)
            guard renderers[index].completed else {
                throw .corrupt(format: .jpeg, detail: "the decode ended before the crop's last row")
            }
            var warnings = decodeWarnings + parts[index].warnings
            if let flattened = RasterImage.flatteningWarning(
                translucent: renderers[index].translucentPixels)
            {
                warnings.append(flattened)
            }
            var bytes = rings[index].bytes
            if let gainMap = gainMaps[index] {
                var primary = heldSinks[index].bytes
                guard MPFIndex.patch(&primary, secondSize: gainMap.bytes.count) else {
                    throw .encodeFailed(
                        format: "jpeg", detail: "the crop's MPF index could not be written")
                }
                try sinks[index].write(primary[...])
                try sinks[index].write(gainMap.bytes[...])
                bytes = primary.count + gainMap.bytes.count
            }
            reports.append(
                plans[index].report(
                    bytes: bytes, warnings: warnings,
                    details: JPEGWriteReport.reencoded(
                        quality: parts[index].quality, metadata: parts[index].entries))
            )
        }
        return reports
    }

    /// Resampled JPEGs of an upright JPEG made in one pass: the union of
    /// their read rects (`stored`, decoded at 1/`shrink`) is decoded once on
    /// this thread while the renderers render (``ringResampledJPEGs``).
    /// Decoding, rendering and encoding share the cores.
    static func overlappedResampledJPEGs(
        _ plans: [CropPlan], into sinks: [any ByteSink], union stored: PixelRect<StoredPixels>,
        shrink: Int, info: JPEGFileInfo
    ) throws(ImagingError) -> [CropReport] {
        let source = plans[0].source
        let rect = stored.shrunk(by: shrink, within: source.storedSize).rect
        let region = PixelRect<ImagePixels>(
            x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        return try ringResampledJPEGs(
            plans, into: sinks, region: region, colorType: info.components == 1 ? .gray : .rgb,
            bitDepth: 8, scale: shrink, offset: (0, 0)
        ) { renderers throws(ImagingError) in
            try JPEGDecoder.decode(
                source.input, info: info, rect: rect, limits: source.limits,
                lenient: plans[0].lenient,
                rows: renderers.count == 1 ? renderers[0] : FanOutRows(renderers),
                scaleDenominator: shrink
            ).warnings
        }
    }

    /// A resampled JPEG from a region already decoded (``ringResampledJPEGs``
    /// with every region row there from the start).
    func ringResampledJPEG(from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        try Self.ringResampledJPEGs(
            [self], into: [sink], region: region.origin, colorType: region.pixels.colorType,
            bitDepth: region.pixels.bitDepth, scale: region.shrink, offset: region.offset
        ) { renderers throws(ImagingError) in
            try region.pixels.samples.withUnsafeBufferPointer { samples throws(ImagingError) in
                guard let pixels = samples.baseAddress else { return }
                for renderer in renderers {
                    try renderer.begin(pixels: pixels)
                    renderer.rowsReady(region.origin.height)
                    try renderer.end(succeeded: true)
                }
            }
            return region.warnings
        }[0]
    }

    /// The metadata segments of a JPEG whose pixels are encoded again,
    /// upright (resampled, or decoded from a PNG or HEIF): the source's
    /// colour profile, and its EXIF (orientation 1, the output's size) and
    /// XMP; with the entries that say what was written. One function for
    /// every route, so that a resized HEIC keeps its EXIF as a plain crop
    /// of it does (the resampled route wrote the profile alone while its
    /// report said the EXIF was rewritten).
    func resampledJPEGMetadata(
        _ encoder: JPEGEncoder, warnings: inout [String], carriesGainMap: Bool = false,
        resampledGainMap gainMap: ResampledGainMap? = nil
    ) throws(ImagingError) -> (markers: [UInt8], entries: [MetadataEntry]) {
        let size = PixelSize<StoredPixels>(width: outputSize.width, height: outputSize.height)
        if let gainMap, let info = source.header as? JPEGFileInfo {
            // A JPEG's gain map goes on: its photo's gain-map description
            // stays (an Ultra HDR container's GainMap item its new length),
            // and an MPF index names it.
            var metadata = try JPEGMetadata.clean(
                info, input: source.input, size: size, orientation: .up,
                policy: placing(encoder.metadata), keepsGainMapItems: true
            ).forReencodedPixels(of: info)
            keepGoogleDepth(info, metadata: &metadata)
            warnings += metadata.warnings
            let length = gainMap.bytes.count
            metadata.segments = metadata.changingXMP {
                XMPCleaner.settingGainMapLength($0, to: length)
            }
            metadata.segments += MPFIndex.segment(secondAttribute: gainMap.attribute)
            let entry = MetadataEntry(
                segment: "APP2 MPF", action: .rewritten, reason: gainMap.report)
            if let at = metadata.entries.firstIndex(where: { $0.segment.hasSuffix("MPF") }) {
                metadata.entries[at] = entry
            } else {
                metadata.entries.append(entry)
            }
            if let at = metadata.entries.firstIndex(where: {
                $0.segment.hasSuffix("bytes after the image")
            }) {
                metadata.entries[at].reason += "; \(gainMap.name) among them is resampled and kept"
            }
            return (metadata.segments, metadata.entries)
        }
        let metadata = try source.reader.cleanedMetadata(
            in: source.input, size: size, policy: placing(encoder.metadata))
        warnings += metadata.warnings
        // A gain map this route does not carry is dropped, and the report
        // says so where the crop was asked to keep companions.
        if encoder.metadata.companions == .keep, !encoder.metadata.stripAll, !carriesGainMap,
            gainMap == nil, let named = source.reader.gainMap(in: source.input)
        {
            let route =
                source.header is JPEGFileInfo
                ? "a turned, resized or circled crop" : "a JPEG made from another format"
            warnings.append(
                "companions are kept where the output carries them: the source has \(named), which \(route) does not carry yet, so the crop shows in standard dynamic range"
            )
        }
        // Another format's gain map (a HEIC's Apple one): carried in
        // Apple's JPEG form, not dropped, after the crop's own metadata.
        func withGainMap(_ markers: [UInt8], _ entries: [MetadataEntry]) -> (
            markers: [UInt8], entries: [MetadataEntry]
        ) {
            guard let gainMap else { return (markers, entries) }
            return Self.carrying(
                gainMap: gainMap.report, replacing: gainMap.replaces, ultraHDR: gainMap.ultraHDR,
                length: gainMap.bytes.count, attribute: gainMap.attribute, markers: markers,
                entries: entries)
        }
        if let native = metadata.native as? JPEGNativeMetadata {
            // A JPEG's Google depth map is resampled with it, in a new
            // extended XMP packet beside the same cleaned segments.
            var carried = JPEGMetadata(
                segments: native.segments, entries: metadata.entries, xmp: metadata.xmp)
            if let info = source.header as? JPEGFileInfo, resampling != nil,
                encoder.metadata.companions == .keep, !encoder.metadata.stripAll
            {
                keepGoogleDepth(info, metadata: &carried)
                warnings += carried.warnings
            }
            return withGainMap(carried.segments, carried.entries)
        }
        var markers: [UInt8] = []
        var written: Set<MetadataKind> = []
        for (body, kind, what) in [
            (metadata.exif.map { JPEGMetadata.exifSignature + $0 }, MetadataKind.exif, "EXIF"),
            (metadata.xmp.map { JPEGMetadata.xmpSignature + Array($0.utf8) }, .xmp, "XMP"),
        ] {
            guard let body else { continue }
            if body.count <= 65_533 {
                markers += JPEGMetadata.segment(0xE1, body)
                written.insert(kind)
            } else {
                warnings.append(
                    "the \(what) (\(body.count) bytes) is too long for one JPEG segment; not written"
                )
            }
        }
        if let profile = metadata.iccProfile {
            let segments = ICCProfile.jpegSegments(profile)
            markers += segments
            if !segments.isEmpty { written.insert(.iccProfile) }
        }
        return withGainMap(markers, metadata.entries(as: .jpeg, written: written))
    }

    /// The quality (the encoder's, or the default) and its coding, 4:2:0:
    /// how every route that makes new JPEG pixels encodes them.
    private static func resampledJPEGCoding(_ encoder: JPEGEncoder, gray: Bool) -> (
        Int, ck_jpeg_coding
    ) {
        let quality = encoder.quality ?? JPEGEncoder.defaultQuality
        return (
            quality,
            JPEGEncoder.qualityCoding(
                quality, horizontal: gray ? [1] : [2, 1, 1], vertical: gray ? [1] : [2, 1, 1],
                progressive: false)
        )
    }

    /// The crop decoded, made 8-bit and opaque, turned upright and encoded
    /// at the encoder's quality (the default where none was asked for),
    /// after `markers`: how a JPEG is made from a source that is not one.
    private func encodeDecoded(
        _ encoder: JPEGEncoder, markers: [UInt8], entries: [MetadataEntry], warnings: [String],
        to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        var decoded = try source.decode(stored, lenient: lenient)
        var warnings = decoded.warnings + warnings
        // Each step replaces the image it was made from, so that no more
        // than two copies of the crop live at once (debug builds keep a
        // named intermediate alive to the end of its scope).
        decoded.image = decoded.image.eightBitOpaque(warnings: &warnings)
        decoded.image = decoded.image.oriented(orientation)
        let (quality, coding) = Self.resampledJPEGCoding(
            encoder, gray: decoded.image.colorType == .gray)
        let bytes = try encoder.encode(
            decoded.image, coding: coding, markers: markers, writeJFIF: true, to: sink)
        return report(
            bytes: bytes, warnings: warnings,
            details: JPEGWriteReport.reencoded(quality: quality, metadata: entries))
    }

    /// Google's depth map (``GoogleDepth``) cut with the crop (resampled
    /// with a turned or resized one) and written back into `metadata` as a
    /// new extended XMP packet that the main XMP names; the extended XMP's
    /// other contents (the unblurred whole photo in `GImage:Data`) removed.
    /// A depth map that cannot be cut is dropped, as before, with a
    /// warning.
    private func keepGoogleDepth(_ info: JPEGFileInfo, metadata: inout JPEGMetadata) {
        guard metadata.xmp != nil,
            let png = try? GoogleDepth.find(info, input: source.input)
        else { return }
        do throws(ImagingError) {
            let cut =
                if let resampling {
                    try GoogleDepth.resample(
                        png, photo: source.storedSize, orientation: orientation,
                        crop: resampling.crop, limits: source.limits, lenient: lenient)
                } else {
                    try GoogleDepth.cut(
                        png, photo: source.storedSize, rect: stored, limits: source.limits,
                        lenient: lenient)
                }
            let (packet, guid) = GoogleDepth.packet(holding: cut.png)
            metadata.segments =
                metadata.changingXMP { GoogleDepth.naming(guid, in: $0) }
                + GoogleDepth.segments(packet, guid: guid)
            let entry = MetadataEntry(
                segment: "APP1 extended XMP", action: .rewritten,
                reason:
                    "Google's depth map (GDepth:Data) cut to the crop: \(cut.size), \(cut.how), a PNG again; GImage:Data (the unblurred whole photo) and the rest removed; the main XMP names the new packet (GUID \(guid))",
                kind: .xmp)
            if let main = metadata.entries.firstIndex(where: { $0.segment.hasSuffix(" XMP") }) {
                metadata.entries[main].reason = metadata.entries[main].reason
                    .replacingOccurrences(
                        of: "xmpNote:HasExtendedXMP removed",
                        with: "xmpNote:HasExtendedXMP set to the new depth packet's GUID")
            }
            let extended = metadata.entries.indices.filter {
                metadata.entries[$0].segment.hasSuffix("extended XMP")
            }
            if let first = extended.first {
                metadata.entries[first] = entry
                for index in extended.dropFirst().reversed() { metadata.entries.remove(at: index) }
            } else {
                metadata.entries.append(entry)
            }
        } catch {
            metadata.warnings.append(
                "the depth map (GDepth:Data) was dropped: \(error.description)")
        }
    }

    /// A gain map resampled with its crop: the JPEG file that follows the
    /// crop, its MPF attribute, the report's words for it, and the source's
    /// report entry it replaces (a HEIC's auxiliary item), if any.
    struct ResampledGainMap {
        var bytes: [UInt8]
        var attribute: UInt32
        var report: String
        var replaces: String?
        /// Whether the crop's XMP must name it as Ultra HDR does (a HEIC's
        /// `hdrgm:` map; a JPEG source's own XMP already does).
        var ultraHDR = false
        /// What it is: "the HDR gain map", or a stereo pair's other eye.
        var name = "the HDR gain map"
    }

    /// The source's gain map resampled with this resampled crop
    /// (``CompanionResample``: its scale kept against the output, each
    /// pixel at the crop's sample position), encoded at
    /// ``GainMap/sampledQuality`` with its own description (a JPEG's own
    /// XMP, or Apple's JPEG form of a HEIC's); `nil` where companions are
    /// dropped or the source has none a JPEG holds; a failure where it
    /// cannot be made (the crop goes on without it).
    func resampledGainMap(_ encoder: JPEGEncoder) -> Result<ResampledGainMap, ImagingError>? {
        guard encoder.metadata.companions == .keep, !encoder.metadata.stripAll,
            let resample = resampling
        else { return nil }
        let shownPhoto =
            orientation.swapsAxes
            ? PixelSize<ImagePixels>(
                width: source.storedSize.height, height: source.storedSize.width)
            : PixelSize<ImagePixels>(
                width: source.storedSize.width, height: source.storedSize.height)
        do throws(ImagingError) {
            let stored: RasterImage
            var attribute: UInt32 = 0
            var replaces: String?
            var ultraHDR = false
            var describe: ([UInt8]) throws(ImagingError) -> [UInt8]
            var name = "the HDR gain map"
            var coding: (quality: Int, coding: ck_jpeg_coding)?
            if let info = source.header as? JPEGFileInfo {
                guard let found = try GainMap.find(info, input: source.input, eyes: true) else {
                    return nil
                }
                let map = try ImageSource(
                    ImageInput(bytes: found.bytes, name: "gain map"), limits: source.limits)
                guard GainMap.grid(map, photo: source.storedSize) != nil else {
                    throw .unsupported(
                        format: .jpeg,
                        detail:
                            "it (\(map.storedSize)) is not aligned to the \(source.storedSize) photo"
                    )
                }
                var decodeWarnings: [String] = []
                stored = try map.decode(
                    PixelRect(
                        x: 0, y: 0, width: map.storedSize.width, height: map.storedSize.height),
                    lenient: lenient
                ).image.eightBitOpaque(warnings: &decodeWarnings)
                attribute = found.attribute
                describe = { bytes throws(ImagingError) in try found.withOwnXMP(bytes, from: map) }
                if found.isEye {
                    // The other eye is a photo: encoded as the crop is, at
                    // its quality, with no description of its own.
                    name = found.name
                    describe = { $0 }
                    coding = Self.resampledJPEGCoding(encoder, gray: stored.colorType == .gray)
                }
            } else {
                let whole = PixelRect<StoredPixels>(
                    x: 0, y: 0, width: source.storedSize.width, height: source.storedSize.height)
                guard let cut = try source.reader.jpegGainMap(in: source.input, stored: whole)
                else { return nil }
                stored = cut.image
                replaces = cut.sourceEntry
                ultraHDR = cut.ultraHDR
                let xmp = JPEGMetadata.segment(
                    0xE1, JPEGMetadata.xmpSignature + Array(cut.xmp.utf8))
                describe = { bytes in
                    // After the SOI and the JFIF segment.
                    guard bytes.count > 6, bytes[2] == 0xFF, bytes[3] == 0xE0 else {
                        return Array(bytes[..<2]) + xmp + Array(bytes[2...])
                    }
                    let at = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
                    return Array(bytes[..<at]) + xmp + Array(bytes[at...])
                }
            }
            guard
                let map = CompanionResample.resample(
                    stored.oriented(orientation), photo: shownPhoto, crop: resample.crop)
            else {
                throw .unsupported(format: .jpeg, detail: "it has no crop at its scale")
            }
            let gray = map.colorType.channels == 1
            let (quality, mapCoding) =
                coding
                ?? (
                    GainMap.sampledQuality,
                    JPEGEncoder.qualityCoding(
                        GainMap.sampledQuality, horizontal: gray ? [1] : [1, 1, 1],
                        vertical: gray ? [1] : [1, 1, 1], progressive: false)
                )
            let sink = MemorySink()
            _ = try JPEGEncoder(metadata: MetadataPolicy(stripAll: true)).encode(
                map, coding: mapCoding, markers: [], writeJFIF: true, to: sink)
            return .success(
                ResampledGainMap(
                    bytes: try describe(sink.bytes), attribute: attribute,
                    report:
                        "\(name) resampled with the crop (\(map.width)x\(map.height), each pixel at the crop's sample position, encoded at quality \(quality)) and indexed after it",
                    replaces: replaces, ultraHDR: ultraHDR, name: name))
        } catch {
            return .failure(error)
        }
    }

    /// A JPEG made from another format's pixels with that format's gain
    /// map after it: `markers` with an MPF index naming the map (and, in
    /// Ultra HDR's form, the XMP's description of it, the map `length`
    /// bytes), and `entries` with the source's entry for the map
    /// (`replacing`) gone, the report's line for it (`gainMap`) added, and
    /// what else the source drops (a `tmap` rendition) no longer said to
    /// leave the crop in standard dynamic range.
    private static func carrying(
        gainMap report: String, replacing: String?, ultraHDR: Bool, length: Int,
        attribute: UInt32, markers: [UInt8], entries: [MetadataEntry]
    ) -> (markers: [UInt8], entries: [MetadataEntry]) {
        let form = ultraHDR ? "its gain map in Ultra HDR's form" : "Apple's gain map"
        var kept = entries.filter { $0.segment != replacing }
        for index in kept.indices
        where kept[index].reason.hasSuffix("the crop shows in standard dynamic range") {
            kept[index].reason = kept[index].reason.replacingOccurrences(
                of: "the crop shows in standard dynamic range",
                with: "the crop carries \(form) instead")
        }
        if ultraHDR { kept = UltraHDR.described(kept) }
        kept.append(MetadataEntry(segment: "APP2 MPF", action: .rewritten, reason: report))
        let described = ultraHDR ? UltraHDR.describing(mapLength: length, in: markers) : markers
        return (described + MPFIndex.segment(secondAttribute: attribute), kept)
    }

    /// The crop decoded and encoded (``encodeDecoded(_:markers:entries:warnings:to:)``)
    /// with an MPF index, and after it the source's Apple HDR gain map cut
    /// by the companion rule, turned upright as the crop is, encoded at
    /// ``GainMap/sampledQuality`` with the XMP Apple writes in a JPEG (its
    /// `apdi` type, its `HDRGainMap` version): the form an iPhone's JPEG
    /// takes. The photo's EXIF keeps Apple's MakerNote, whose headroom
    /// (tags 33 and 48) a renderer reads.
    private func withAppleGainMap(
        _ gainMap: JPEGGainMapCut, encoder: JPEGEncoder, markers: [UInt8],
        entries: [MetadataEntry], warnings: [String], to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        let map = gainMap.image.oriented(orientation)
        let mapSink = MemorySink()
        let quality = GainMap.sampledQuality
        _ = try encoder.encode(
            map,
            coding: JPEGEncoder.qualityCoding(
                quality, horizontal: [1], vertical: [1], progressive: false),
            markers: JPEGMetadata.segment(
                0xE1, JPEGMetadata.xmpSignature + Array(gainMap.xmp.utf8)),
            writeJFIF: true, to: mapSink)
        let (described, carried) = Self.carrying(
            gainMap: gainMap.ultraHDR
                ? "the HDR gain map cut to the crop (\(map.width)x\(map.height), sampled by the companion rule and encoded at quality \(quality)) and indexed after it in Ultra HDR's form, with its own hdrgm XMP; the crop's XMP names it (hdrgm:Version, Container:Directory)"
                : "Apple's HDR gain map cut to the crop (\(map.width)x\(map.height), sampled by the companion rule and encoded at quality \(quality)) and indexed after it, with Apple's apdi XMP",
            replacing: gainMap.sourceEntry, ultraHDR: gainMap.ultraHDR,
            length: mapSink.bytes.count, attribute: 0, markers: markers, entries: entries)
        let primarySink = MemorySink()
        var report = try encodeDecoded(
            encoder, markers: described, entries: carried, warnings: warnings, to: primarySink)
        var primary = primarySink.bytes
        guard MPFIndex.patch(&primary, secondSize: mapSink.bytes.count) else {
            throw .encodeFailed(format: "jpeg", detail: "the crop's MPF index could not be written")
        }
        try sink.write(primary[...])
        try sink.write(mapSink.bytes[...])
        report.bytes = primary.count + mapSink.bytes.count
        return report
    }

    /// The crop of a JPEG source without a gain map: none, dropped (asked,
    /// or `dropped`: why it could not be cut), its metadata cleaned.
    private func withoutGainMap(
        _ info: JPEGFileInfo, encoder: JPEGEncoder, dropped: String?, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        var metadata = try JPEGMetadata.clean(
            info, input: source.input, size: stored.size, orientation: nil,
            policy: placing(encoder.metadata), keepsGainMapItems: false)
        if let dropped { metadata.warnings.append(dropped) }
        if encoder.metadata.companions == .keep, !encoder.metadata.stripAll {
            keepGoogleDepth(info, metadata: &metadata)
        }
        return try primary(info, encoder: encoder, metadata: metadata, to: sink)
    }

    /// The crop's own pixels: its blocks copied in the DCT domain where the
    /// rect's corner lies on the grid, else decoded and encoded again.
    private func primary(
        _ info: JPEGFileInfo, encoder: JPEGEncoder, metadata: JPEGMetadata, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        if isDCTDomainCrop {
            return try transcode(info, encoder: encoder, metadata: metadata, to: sink)
        }
        return try reencode(info, encoder: encoder, metadata: metadata, to: sink)
    }

    /// A length no gain map has, written into an Ultra HDR photo's
    /// container directory while the map is cut beside the crop, and
    /// replaced by the map's length once it is known.
    static let pendingGainMapLength = 987_654_321_987

    /// The crop, and the photo's gain map (`gainMap`) cut by the companion
    /// rule after it (``GainMap/cut(for:of:limits:lenient:)``), with a new
    /// MPF index: the two side by side, one a core. The crop's metadata
    /// names the map's length (an Ultra HDR container's GainMap item)
    /// before the map is cut, so it is written with
    /// ``pendingGainMapLength`` and that is then set in place
    /// (``settingPendingGainMapLength(_:to:)``): the same bytes as cutting
    /// the map first. A map that cannot be cut is dropped, the crop
    /// written again without it, and the report says why.
    private func withGainMap(
        _ gainMap: GainMap, info: JPEGFileInfo, encoder: JPEGEncoder, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        let (stored, photo, limits, lenient) = (stored, source.storedSize, source.limits, lenient)
        let work = try concurrentResults(2) { n throws(ImagingError) -> JPEGCompanionWork in
            if n == 0 {
                return .map(gainMap.cut(for: stored, of: photo, limits: limits, lenient: lenient))
            }
            let primarySink = MemorySink()
            let report = try primaryWithGainMap(
                gainMap, info: info, encoder: encoder, to: primarySink)
            return .primary(primarySink.bytes, report)
        }
        guard case .map(let cut) = work[0], case .primary(var primary, var report) = work[1] else {
            preconditionFailure("the two jobs are the map and the crop")
        }
        let mapBytes: [UInt8]
        switch cut {
        case .success(let made):
            mapBytes = made.bytes
            report.details = Self.naming(gainMap, how: made.how, in: report.details)
        case .failure(let dropped):
            return try withoutGainMap(info, encoder: encoder, dropped: dropped.reason, to: sink)
        }
        guard Self.settingPendingGainMapLength(&primary, to: mapBytes.count),
            MPFIndex.patch(&primary, secondSize: mapBytes.count)
        else {
            throw .encodeFailed(format: "jpeg", detail: "the crop's MPF index could not be written")
        }
        try sink.write(primary[...])
        try sink.write(mapBytes[...])
        report.bytes = primary.count + mapBytes.count
        return report
    }

    /// The crop with the metadata of a photo whose gain map follows it: the
    /// gain map's XMP items kept, an Ultra HDR container's GainMap item of
    /// ``pendingGainMapLength``, an MPF index naming the map after it.
    private func primaryWithGainMap(
        _ gainMap: GainMap, info: JPEGFileInfo, encoder: JPEGEncoder, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        var metadata = try JPEGMetadata.clean(
            info, input: source.input, size: stored.size, orientation: nil,
            policy: placing(encoder.metadata), keepsGainMapItems: true)
        keepGoogleDepth(info, metadata: &metadata)
        metadata.segments = metadata.changingXMP {
            XMPCleaner.settingGainMapLength($0, to: Self.pendingGainMapLength)
        }
        metadata.segments += MPFIndex.segment(secondAttribute: gainMap.attribute)
        if let at = metadata.entries.firstIndex(where: {
            $0.segment.hasSuffix("bytes after the image")
        }) {
            metadata.entries[at].reason += "; \(gainMap.name) among them is cut and kept"
        }
        var primaryEncoder = encoder
        primaryEncoder.metadata.companions = .drop
        return try primary(
            info, encoder: isDCTDomainCrop ? primaryEncoder : encoder, metadata: metadata,
            to: sink)
    }

    /// `details` (a JPEG crop's) with its MPF entry saying how `gainMap`
    /// was cut (`how`).
    private static func naming(_ gainMap: GainMap, how: String, in details: any WriteReport)
        -> any WriteReport
    {
        guard var jpeg = details as? JPEGWriteReport else { return details }
        if let at = jpeg.metadata.firstIndex(where: { $0.segment.hasSuffix("MPF") }) {
            jpeg.metadata[at] = MetadataEntry(
                segment: jpeg.metadata[at].segment, action: .rewritten,
                reason: "\(gainMap.name) cut to the crop, \(how), and indexed anew")
        }
        return jpeg
    }

    /// Sets the gain map's length, `length`, where the crop's XMP says
    /// ``pendingGainMapLength`` (an Ultra HDR container's GainMap item), in
    /// the APP1 segment that holds it, whose length follows. True when
    /// there is none or it was set; false for a segment that cannot hold
    /// the text.
    static func settingPendingGainMapLength(_ jpeg: inout [UInt8], to length: Int) -> Bool {
        let pending = Array(String(pendingGainMapLength).utf8)
        let actual = Array(String(length).utf8)
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
            let size = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            let end = at + 2 + size
            guard size >= 2, end <= jpeg.count else { return true }
            if jpeg[at + 1] == 0xE1,
                let found = jpeg[(at + 4)..<end].firstRange(of: pending)?.lowerBound
            {
                let body =
                    Array(jpeg[(at + 4)..<found]) + actual
                    + Array(jpeg[(found + pending.count)..<end])
                guard body.count + 2 <= 0xFFFF else { return false }
                let header: [UInt8] = [
                    0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF),
                ]
                jpeg.replaceSubrange(at..<end, with: header + body)
                return true
            }
            at = end
        }
        return true
    }

    /// The exact crop of a JPEG source, decoded and encoded again with its
    /// own tables and sampling (or at the encoder's quality).
    private func reencode(
        _ info: JPEGFileInfo, encoder: JPEGEncoder, metadata: JPEGMetadata, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        let coding =
            encoder.quality.map {
                JPEGEncoder.qualityCoding(
                    $0, horizontal: info.horizontalSampling, vertical: info.verticalSampling,
                    progressive: info.progressive)
            } ?? JPEGEncoder.sourceCoding(info)
        // The encoder takes each row as the decoder finishes it, on a
        // thread of its own.
        let channels = info.components == 1 ? 1 : 3
        let metadata = metadata.forReencodedPixels(of: info)
        let pipeline = PipelinedJPEGEncode(
            width: stored.width, height: stored.height, channels: channels, coding: coding,
            markers: metadata.segments, to: sink)
        let decoded = try source.decode(stored, lenient: lenient, rows: pipeline)
        return report(
            bytes: pipeline.bytes,
            warnings: decoded.warnings + metadata.warnings,
            details: JPEGWriteReport(
                method: .reencoded, reencodedBlocks: 0, stoppedEarly: false,
                tables: encoder.quality.map { "quality \($0)" } ?? "source tables",
                progressive: info.progressive, arithmetic: false, metadata: metadata.entries))
    }

    /// The DCT-domain crop of a JPEG source.
    private func transcode(
        _ info: JPEGFileInfo, encoder: JPEGEncoder, metadata: JPEGMetadata, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        let limits = source.limits
        var request = ck_jpeg_transcode_request()
        request.source = info.cropParams(crop: stored, limits: limits, lenient: lenient)
        request.fix_edges = encoder.method == .lossless ? 0 : 1
        if !encoder.fixesEdges { request.fix_edges = 2 }
        let control =
            encoder.entropyControl == .automatic
            ? JPEGEntropy.fromEnvironment : encoder.entropyControl
        (request.entropy_mode, request.split_permille) = control.mode
        let output = JPEGOutput(sink)
        let status = metadata.segments.withUnsafeBufferPointer { markers in
            request.markers = markers.baseAddress
            request.markers_size = markers.count
            return source.input.withCInput { input in
                output.run { write, context in
                    request.write = write
                    request.write_context = context
                    return ck_jpeg_transcode_crop(input, &request)
                }
            }
        }
        if let failure = output.failure { throw failure }
        let message = cMessage(request.message)
        var warnings = info.warnings + metadata.warnings
        if let failure = JPEGDecoder.failure(
            status: status, message: message, warnings: Int(request.warnings),
            scans: Int(request.scans), limits: limits, what: "transcode")
        {
            throw failure
        }
        if request.warnings > 0 {
            warnings.append(
                "libjpeg: \(message) (\(request.warnings) warning(s), accepted as lenient)")
        }
        let reencoded = Int(request.reencoded_blocks)
        var details = JPEGWriteReport(
            method: reencoded > 0 ? .losslessEdgesReencoded : .lossless,
            reencodedBlocks: reencoded, stoppedEarly: request.stopped_early != 0,
            tables: "source tables", progressive: request.progressive != 0,
            arithmetic: request.arithmetic != 0, metadata: metadata.entries)
        details.entropy =
            switch request.entropy {
            case 2: .restartMarkers
            case 3: .speculative
            case 4: .serial
            default: .libjpeg
            }
        details.encoder = request.encoder == 1 ? .cropkit : .libjpeg
        return report(bytes: output.bytes, warnings: warnings, details: details)
    }

    private func report(
        bytes: Int, warnings: [String], details: JPEGWriteReport
    ) -> CropReport {
        CropReport(
            output: nil, bytes: bytes, size: outputSize, format: format.name,
            warnings: warnings, checksum: nil, details: details)
    }
}

/// Which entropy decoder and encoder a DCT-domain JPEG crop uses: CropKit's
/// own (`jpeg_entropy.c`, `jpeg_huffman.c`) where the file is a baseline
/// one they handle, else libjpeg-turbo's. `CROPKIT_JPEG_ENTROPY` sets
/// another for the tests, the benchmarks and the fuzz target:
/// `libjpeg` (libjpeg-turbo's decoder and encoder, the control), `serial`
/// (CropKit's decoder without speculation), `speculative@N` (speculation
/// wherever it can, the second thread starting N thousandths of the way).
@_spi(Testing) public enum JPEGEntropy {
    /// A choice of decoder and encoder (for tests and the fuzz target).
    public enum Control: Equatable, Sendable {
        /// CropKit's own where they apply (the default).
        case automatic
        /// libjpeg-turbo's decoder and encoder: the control.
        case libjpeg
        /// CropKit's decoder without speculation, on files without restart
        /// markers too (the reference speculation is checked against).
        case serial
        /// Speculation wherever it can, the second thread starting
        /// `permille` thousandths of the way through the data the crop
        /// needs (1 to 999).
        case speculative(permille: Int)

        /// `entropy_mode` and `split_permille` of the C request.
        var mode: (Int32, Int32) {
            switch self {
            case .automatic: (0, 0)
            case .libjpeg: (1, 0)
            case .serial: (2, 0)
            case .speculative(let permille): (3, Int32(clamping: min(max(permille, 1), 999)))
            }
        }
    }

    /// What `CROPKIT_JPEG_ENTROPY` asks for (automatic when unset or not
    /// understood).
    static let fromEnvironment: Control = {
        let value = ProcessInfo.processInfo.environment["CROPKIT_JPEG_ENTROPY"] ?? ""
        if value == "libjpeg" { return .libjpeg }
        if value == "serial" { return .serial }
        if value.hasPrefix("speculative@"), let permille = Int(value.dropFirst(12)) {
            return .speculative(permille: permille)
        }
        return .automatic
    }()
}

/// Ultra HDR's description of a gain map in the photo's own XMP (Adobe's
/// gain map specification and Android's Ultra HDR format): `hdrgm:Version`
/// and a container directory naming the photo and the gain map that
/// follows it, with its length.
enum UltraHDR {
    /// `entries` saying that the crop's XMP names its gain map: the source's
    /// description, removed by the cleaner, is written anew.
    static func described(_ entries: [MetadataEntry]) -> [MetadataEntry] {
        entries.map { entry in
            var entry = entry
            guard entry.kind == .xmp || entry.segment.hasSuffix("XMP") else { return entry }
            entry.reason = entry.reason
                .replacingOccurrences(
                    of: "Container:Directory removed",
                    with: "Container:Directory written anew for the crop's gain map"
                )
                .replacingOccurrences(of: "hdrgm:Version removed", with: "hdrgm:Version kept")
            return entry
        }
    }

    /// `markers` (a crop's metadata segments) with that description: added
    /// to its XMP packet as a description of its own, or as a new XMP
    /// segment where it has none.
    static func describing(mapLength: Int, in markers: [UInt8]) -> [UInt8] {
        let block =
            "<rdf:Description rdf:about=\"\" xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" xmlns:Container=\"http://ns.google.com/photos/1.0/container/\" xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\" hdrgm:Version=\"1.0\"><Container:Directory><rdf:Seq><rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/></rdf:li><rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"\(mapLength)\"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description>"
        var metadata = JPEGMetadata()
        metadata.segments = markers
        var found = false
        let changed = metadata.rewritingSegments { marker, body in
            let signature = JPEGMetadata.xmpSignature
            guard marker == 0xE1, body.starts(with: signature), !found else { return body }
            var text = String(decoding: body[signature.count...], as: UTF8.self)
            guard let end = text.range(of: "</rdf:RDF>") else { return body }
            found = true
            text.replaceSubrange(end.lowerBound..<end.lowerBound, with: block)
            return signature + Array(text.utf8)
        }
        if found { return changed }
        let packet =
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + block + "</rdf:RDF></x:xmpmeta>"
        return markers + JPEGMetadata.segment(0xE1, JPEGMetadata.xmpSignature + Array(packet.utf8))
    }
}

/// One of the two jobs of a JPEG crop with its gain map: the map cut, or
/// the crop written (its bytes and report).
private enum JPEGCompanionWork: Sendable {
    case map(Result<(bytes: [UInt8], how: String), GainMap.Dropped>)
    case primary([UInt8], CropReport)
}
