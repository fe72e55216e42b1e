internal import CImagingShims

/// Reads JPEG pixels through libjpeg-turbo, decoding only a crop.
public enum JPEGDecoder {
    /// The most scans a progressive JPEG may have (a scan bomb repeats them).
    public static let defaultMaxScans = 500

    /// The pixels of `rect` (the stored grid) of the JPEG at `path`, as 8-bit
    /// gray (one-component files) or RGB (all others; CMYK and YCCK are
    /// converted as Adobe's inverted CMYK).
    ///
    /// Only the MCU columns the crop needs are decoded (with a margin that
    /// keeps the chroma upsampler's neighbours, so the result equals the same
    /// rect of a full decode bit for bit), rows above are skipped and decoding
    /// stops after the crop's last row.
    ///
    /// - Parameters:
    ///   - lenient: Whether corrupt data that libjpeg can step over (a
    ///     warning, such as premature end of data) is accepted; by default it
    ///     is an error.
    /// - Throws: ``ImagingError``.
    public static func decode(
        path: String, rect: (x: Int, y: Int, width: Int, height: Int)? = nil,
        info knownInfo: JPEGFileInfo? = nil,
        limits: DecodeLimits = .standard, maxScans: Int = defaultMaxScans, lenient: Bool = false
    ) throws(ImagingError) -> (image: RasterImage, warnings: [String]) {
        try decode(
            path: path, rect: rect, info: knownInfo, limits: limits, maxScans: maxScans,
            lenient: lenient, rows: nil)
    }

    /// ``decode(path:rect:info:limits:maxScans:lenient:)``, reporting each
    /// crop row to `rows` as soon as it is final.
    static func decode(
        path: String, rect: (x: Int, y: Int, width: Int, height: Int)?,
        info knownInfo: JPEGFileInfo?, limits: DecodeLimits, maxScans: Int, lenient: Bool,
        rows: PNGRowStream?
    ) throws(ImagingError) -> (image: RasterImage, warnings: [String]) {
        let info: JPEGFileInfo
        if let knownInfo {
            info = knownInfo
        } else {
            info = try JPEGFileInfo.read(path: path, limits: limits)
        }
        let crop = rect ?? (0, 0, info.width, info.height)
        try checkCrop(crop, inside: info.width, info.height)
        let channels = info.components == 1 ? 1 : 3
        let size = crop.width * crop.height * channels
        var samples = [UInt8](unsafeUninitializedCapacity: size + crop.height) { _, count in
            count = size
        }
        var request = ck_jpeg_read_request()
        request.crop_x = UInt32(crop.x)
        request.crop_y = UInt32(crop.y)
        request.crop_width = UInt32(crop.width)
        request.crop_height = UInt32(crop.height)
        request.width = UInt32(info.width)
        request.height = UInt32(info.height)
        request.components = Int32(info.components)
        request.max_scans = Int32(maxScans)
        request.max_memory = 512 << 20
        request.lenient = lenient ? 1 : 0
        let status = try samples.withUnsafeMutableBufferPointer { buffer throws(ImagingError) in
            request.pixels = buffer.baseAddress
            request.pixels_size = buffer.count
            return try PNGRowStream.feed(rows, from: buffer.baseAddress!) { stream in
                request.stream = stream
                return ck_jpeg_read_crop(path, &request)
            }
        }
        let message = cMessage(request.message)
        switch Int(status) {
        case CK_STATUS_OK:
            var warnings = info.warnings
            if request.warnings > 0 {
                warnings.append(
                    "libjpeg: \(message) (\(request.warnings) warning(s), accepted with --lenient)")
            }
            let image = RasterImage(
                width: crop.width, height: crop.height, colorType: channels == 1 ? .gray : .rgb,
                bitDepth: 8,
                samples: samples)
            return (image, warnings)
        case CK_STATUS_CANNOT_OPEN:
            throw ImagingError(.cannotOpen, "cannot open '\(path)'")
        case CK_STATUS_LIMIT:
            throw ImagingError(.limit, "JPEG: \(message)")
        case CK_STATUS_OUT_OF_MEMORY:
            throw ImagingError(.outOfMemory, "JPEG decode ran out of memory: \(message)")
        default:
            let hint =
                request.warnings > 0 ? " (pass --lenient to accept data libjpeg can step over)" : ""
            throw ImagingError(.corrupt, "JPEG data is corrupt: \(message) (libjpeg)\(hint)")
        }
    }
}
