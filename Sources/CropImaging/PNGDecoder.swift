internal import CImagingShims

/// Reads PNG pixels through libpng, keeping only a crop.
public enum PNGDecoder {
    /// The pixels of `rect` (the stored grid) of the PNG at `path`, in the
    /// file's own format, with the chunks a crop carries.
    ///
    /// Rows above the crop are decoded and dropped and only the crop's columns
    /// are kept; for a non-interlaced file decoding stops after the crop's
    /// last row, so the rest of the file is not read. Memory is the crop's
    /// bytes plus one row (an interlaced file also keeps the crop's full-width
    /// rows until its last pass).
    ///
    /// - Parameters:
    ///   - path: The PNG file.
    ///   - rect: The crop as `(x, y, width, height)`; `nil` for the whole image.
    ///   - info: The file's chunk list, if already read.
    ///   - limits: Refused above these, before any large allocation.
    /// - Throws: ``ImagingError``.
    public static func decode(
        path: String, rect: (x: Int, y: Int, width: Int, height: Int)? = nil,
        info knownInfo: PNGFileInfo? = nil,
        limits: DecodeLimits = .standard
    ) throws(ImagingError) -> RasterImage {
        try decode(path: path, rect: rect, info: knownInfo, limits: limits, rows: nil)
    }

    /// ``decode(path:rect:info:limits:)``, reporting each crop row to `rows`
    /// as soon as it is final.
    static func decode(
        path: String, rect: (x: Int, y: Int, width: Int, height: Int)?,
        info knownInfo: PNGFileInfo?, limits: DecodeLimits, rows: PNGRowStream?
    ) throws(ImagingError) -> RasterImage {
        let info: PNGFileInfo
        if let given = knownInfo {
            info = given
        } else {
            info = try PNGFileInfo.read(path: path, limits: limits)
        }
        let crop = rect ?? (0, 0, info.width, info.height)
        try checkCrop(crop, inside: info.width, info.height)
        let bytesPerPixel = info.colorType.channels * (info.bitDepth == 16 ? 2 : 1)
        let (size, overflow) = (crop.width * bytesPerPixel).multipliedReportingOverflow(
            by: crop.height)
        guard !overflow, crop.width * crop.height <= limits.maxPixels else {
            throw ImagingError(
                .limit, "the crop is over the \(limits.maxPixels)-pixel limit (--max-pixels)")
        }
        // Uninitialised (libpng writes every byte), with room for one more
        // byte a row so the encoder can filter in place.
        var samples = [UInt8](unsafeUninitializedCapacity: size + crop.height) { _, count in
            count = size
        }
        var request = ck_png_read_request()
        request.crop_x = UInt32(crop.x)
        request.crop_y = UInt32(crop.y)
        request.crop_width = UInt32(crop.width)
        request.crop_height = UInt32(crop.height)
        request.width = UInt32(info.width)
        request.height = UInt32(info.height)
        request.bit_depth = Int32(info.bitDepth)
        request.color_type = Int32(info.colorType.rawValue)
        request.interlaced = info.interlaced ? 1 : 0
        request.max_width = UInt32(min(limits.maxDimension, Int(UInt32.max)))
        request.max_height = UInt32(min(limits.maxDimension, Int(UInt32.max)))
        request.max_allocation = max(size, 1) * 4 + (64 << 20)
        let status = try samples.withUnsafeMutableBufferPointer { buffer throws(ImagingError) in
            request.pixels = buffer.baseAddress
            request.pixels_size = buffer.count
            return try PNGRowStream.feed(rows, from: buffer.baseAddress!) { stream in
                request.stream = stream
                return ck_png_read_crop(path, &request)
            }
        }
        let message = cMessage(request.message)
        switch Int(status) {
        case CK_STATUS_OK:
            return RasterImage(
                width: crop.width, height: crop.height, colorType: info.colorType,
                bitDepth: info.bitDepth,
                samples: samples, chunks: info.carriedChunks)
        case CK_STATUS_CANNOT_OPEN:
            throw ImagingError(.cannotOpen, "cannot open '\(path)'")
        case CK_STATUS_OUT_OF_MEMORY:
            throw ImagingError(.outOfMemory, "PNG decode ran out of memory: \(message)")
        case CK_STATUS_LIMIT:
            throw ImagingError(.limit, "PNG decode: \(message)")
        default:
            throw ImagingError(.corrupt, "PNG data is corrupt: \(message) (libpng)")
        }
    }
}
