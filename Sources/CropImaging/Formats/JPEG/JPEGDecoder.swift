internal import CImagingShims
import CropGeometry

/// Reads JPEG pixels through libjpeg-turbo, decoding only a crop.
public enum JPEGDecoder {
    /// The pixels of `rect` (the stored grid; by default the whole image) of
    /// the JPEG at `path`, as 8-bit gray or RGB. A convenience over
    /// ``ImageSource/decode(_:lenient:)`` that also checks that the file is
    /// a JPEG.
    ///
    /// - Throws: ``ImagingError``.
    public static func decode(
        path: String, rect: PixelRect<StoredPixels>? = nil, limits: DecodeLimits = .standard,
        lenient: Bool = false
    ) throws(ImagingError) -> DecodedImage {
        let source = try ImageSource.open(path: path, limits: limits)
        guard source.format == .jpeg else {
            throw .unsupported(format: source.format, detail: "'\(path)' is not a JPEG file")
        }
        return try source.decode(rect, lenient: lenient)
    }

    /// The pixels of `rect` of the JPEG in `input`, whose markers are
    /// `info`, as 8-bit gray (one-component files) or RGB (all others; CMYK
    /// and YCCK are converted as Adobe's inverted CMYK), reporting each crop
    /// row to `rows` as soon as it is final.
    ///
    /// Only the MCU columns the crop needs are decoded (with a margin that
    /// keeps the chroma upsampler's neighbours, so the result equals the same
    /// rect of a full decode bit for bit), rows above are skipped and decoding
    /// stops after the crop's last row.
    ///
    /// - Parameter lenient: Whether damaged data that libjpeg can step over
    ///   (a warning, such as premature end of data) is accepted; by default
    ///   it is an error.
    static func decode(
        _ input: ImageInput, info: JPEGFileInfo, rect crop: PixelRect<StoredPixels>,
        limits: DecodeLimits, lenient: Bool, rows: (any RowConsumer)?,
        plainUpsampling: Bool = false, scaleDenominator: Int = 1
    ) throws(ImagingError) -> DecodedImage {
        let channels = info.components == 1 ? 1 : 3
        let size = try limits.cropBytes(crop, bytesPerPixel: channels)
        var request = ck_jpeg_read_request()
        request.source = info.cropParams(crop: crop, limits: limits, lenient: lenient)
        request.plain_upsampling = plainUpsampling ? 1 : 0
        request.scale_denom = UInt32(scaleDenominator)
        let (samples, status) = try decodeRows(size: size, rows: crop.height, into: rows) {
            pixels, ready, context in
            request.pixels = pixels
            request.pixels_size = size
            request.rows_ready = ready
            request.rows_context = context
            return input.withCInput { ck_jpeg_read_crop($0, &request) }
        }
        let message = cMessage(request.message)
        var warnings = info.warnings
        if let failure = failure(
            status: status, message: message, warnings: Int(request.warnings),
            scans: Int(request.scans),
            limits: limits, what: "decode")
        {
            throw failure
        }
        if request.warnings > 0 {
            warnings.append(
                "libjpeg: \(message) (\(request.warnings) warning(s), accepted as lenient)")
        }
        let image = RasterImage(
            width: crop.width, height: crop.height, colorType: channels == 1 ? .gray : .rgb,
            bitDepth: 8, samples: samples)
        return DecodedImage(image: image, warnings: warnings)
    }

    /// The error a libjpeg call's `status` stands for (`nil` for success):
    /// a scan limit, memory, data the caller refused (a crop not lossless
    /// here), or corrupt data, recoverable when libjpeg only warned.
    static func failure(
        status: Int32, message: String, warnings: Int, scans: Int, limits: DecodeLimits,
        what: String
    ) -> ImagingError? {
        switch Int(status) {
        case CK_STATUS_OK: return nil
        case CK_STATUS_LIMIT: return .limitExceeded(.scans, limit: limits.maxScans, actual: scans)
        case CK_STATUS_OUT_OF_MEMORY:
            // libjpeg may take the budget and no more (max_memory_to_use):
            // "Backing store not supported" is that budget reached.
            return .outOfMemory(
                detail:
                    "JPEG \(what) needed more memory than the \(describeBytes(limits.maxMemory)) it may take (libjpeg: \(message))"
            )
        case CK_STATUS_MISMATCH where what == "transcode":
            return .unsupported(format: .jpeg, detail: "the crop is not lossless here: \(message)")
        default:
            if warnings > 0 {
                return .recoverableCorruption(format: .jpeg, detail: "\(message) (libjpeg)")
            }
            return .corrupt(format: .jpeg, detail: "JPEG data is corrupt: \(message) (libjpeg)")
        }
    }
}

extension JPEGFileInfo {
    /// What a crop-aware read and a DCT-domain crop of this JPEG both tell
    /// the C layer: the rect, the size and components the markers gave, the
    /// limits.
    func cropParams(crop: PixelRect<StoredPixels>, limits: DecodeLimits, lenient: Bool)
        -> ck_jpeg_crop_params
    {
        var source = ck_jpeg_crop_params()
        source.crop_x = UInt32(crop.x)
        source.crop_y = UInt32(crop.y)
        source.crop_width = UInt32(crop.width)
        source.crop_height = UInt32(crop.height)
        source.width = UInt32(width)
        source.height = UInt32(height)
        source.components = Int32(components)
        source.max_scans = Int32(clamping: limits.maxScans)
        // libjpeg may take what the crop may hold: the budget less the
        // program's own part.
        source.max_memory = max(limits.maxMemory - limits.programMemory, 1 << 20)
        source.lenient = lenient ? 1 : 0
        return source
    }
}
