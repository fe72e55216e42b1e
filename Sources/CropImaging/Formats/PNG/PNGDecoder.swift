internal import CImagingShims
import CropGeometry

/// Reads PNG pixels through libpng, keeping only a crop.
public enum PNGDecoder {
    /// The pixels of `rect` (the stored grid; by default the whole image)
    /// of the PNG at `path`, in the file's own format, with the chunks a crop
    /// carries. A convenience over ``ImageSource/decode(_:lenient:)`` that
    /// also checks that the file is a PNG.
    ///
    /// - Throws: ``ImagingError``.
    public static func decode(
        path: String, rect: PixelRect<StoredPixels>? = nil, limits: DecodeLimits = .standard,
        inflater: Inflater = .automatic
    ) throws(ImagingError) -> RasterImage {
        var source = try ImageSource.open(path: path, limits: limits)
        source.inflater = inflater
        guard source.format == .png else {
            throw .unsupported(format: source.format, detail: "'\(path)' is not a PNG file")
        }
        return try source.decode(rect).image
    }

    /// The pixels of `rect` of the PNG in `input`, whose chunk list is
    /// `info`, reporting each crop row to `rows` as soon as it is final.
    ///
    /// Rows above the crop are decoded and dropped and only the crop's
    /// columns are kept; for a non-interlaced file decoding stops after the
    /// crop's last row, so the rest of the file is not read. Memory is the
    /// crop's bytes plus one row (an interlaced file also keeps the crop's
    /// full-width rows until its last pass).
    ///
    /// The image data is inflated by ISA-L and unfiltered by CropKit's own C
    /// (`ck_png_read_crop_isal`) when `inflater` allows and the image is
    /// non-interlaced with 8 or 16 bits a sample; otherwise by libpng.
    static func decode(
        _ input: ImageInput, info: PNGFileInfo, rect crop: PixelRect<StoredPixels>,
        limits: DecodeLimits, inflater: Inflater, rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        if inflater == .isal && !Inflater.isISALAvailable {
            throw RuntimeLibrary.isal.missing
        }
        let useISAL =
            inflater != .zlib && !info.interlaced && info.bitDepth >= 8
            && Inflater.isISALAvailable
        let bytesPerPixel = info.colorType.channels * (info.bitDepth == 16 ? 2 : 1)
        let size = try limits.cropBytes(crop, bytesPerPixel: bytesPerPixel)
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
        let (samples, status) = try decodeRows(size: size, rows: crop.height, into: rows) {
            pixels, ready, context in
            request.pixels = pixels
            request.pixels_size = size
            request.rows_ready = ready
            request.rows_context = context
            guard useISAL else { return input.withCInput { ck_png_read_crop($0, &request) } }
            let spans = info.imageData.map {
                ck_data_span(offset: UInt64($0.offset), length: UInt32(clamping: $0.length))
            }
            return input.withCInput { source in
                spans.withUnsafeBufferPointer {
                    ck_png_read_crop_isal(source, $0.baseAddress, $0.count, &request)
                }
            }
        }
        let message = cMessage(request.message)
        switch Int(status) {
        case CK_STATUS_OK:
            let image = RasterImage(
                width: crop.width, height: crop.height, colorType: info.colorType,
                bitDepth: info.bitDepth, samples: samples, chunks: info.carriedChunks)
            var warnings = info.warnings
            if request.warnings > 0, !message.isEmpty {
                // What libpng stepped over (such as image data past the end
                // of the image, within what it inflates).
                warnings.append("libpng: \(message)")
            }
            let checksum: DataChecksum
            switch Int(request.checksum) {
            case CK_CHECKSUM_VERIFIED:
                checksum = .verified
                if request.unread_bytes > 0 {
                    warnings.append(
                        "\(request.unread_bytes) byte(s) of image data follow the end of its zlib stream; ignored"
                    )
                }
            case CK_CHECKSUM_EXTRA_DATA:
                checksum = .extraDataNotInflated
                let rest =
                    request.unread_bytes > 0
                    ? " (\(request.unread_bytes) more byte(s) of IDAT data)" : ""
                warnings.append(
                    "the image data goes on after the last row\(rest); it was not inflated, "
                        + "so its Adler-32 checksum was not checked")
            default:
                checksum = .notReached
            }
            return DecodedImage(image: image, warnings: warnings, checksum: checksum)
        case CK_STATUS_OUT_OF_MEMORY:
            throw .outOfMemory(detail: "PNG decode ran out of memory: \(message)")
        case CK_STATUS_LIMIT:
            let rowBytes = info.width * bytesPerPixel
            throw .limitExceeded(
                .memory, limit: Int(request.max_allocation),
                actual: rowBytes.multipliedReportingOverflow(by: crop.height).partialValue)
        default:
            throw .corrupt(
                format: .png,
                detail: "PNG data is corrupt: \(message) (\(useISAL ? "ISA-L" : "libpng"))")
        }
    }
}
