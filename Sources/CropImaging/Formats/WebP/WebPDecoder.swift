internal import CImagingShims
import CropGeometry

/// Decodes a rect of a WebP's image with libwebp: only the image's own
/// chunks (the bitstream, and a VP8 image's ALPH) are handed to it, in a
/// minimal WebP CropKit writes, and only the rows down to the rect's last
/// are decoded.
enum WebPDecoder {
    /// The pixels of `rect` (the stored grid), RGB or RGBA 8-bit, each row
    /// reported to `consumer` as libwebp finishes it.
    ///
    /// - Throws: ``ImagingError``.
    static func decode(
        _ input: ImageInput, info: WebPFileInfo, rect: PixelRect<StoredPixels>,
        limits: DecodeLimits, rows consumer: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try RuntimeLibrary.libwebp.require()
        try checkCrop(rect, inside: PixelSize(width: info.width, height: info.height))
        let channels = info.hasAlpha ? 4 : 3
        let size = try limits.cropBytes(rect, bytesPerPixel: channels)
        var file = try minimalFile(info, input: input)
        var message = ""
        let (samples, status) = try decodeRows(size: size, rows: rect.height, into: consumer) {
            pixels, ready, context in
            file.withUnsafeMutableBufferPointer { bytes in
                var request = ck_webp_decode_request()
                request.file = UnsafePointer(bytes.baseAddress)
                request.file_size = bytes.count
                request.image_width = UInt32(info.width)
                request.image_height = UInt32(info.height)
                request.x = UInt32(rect.x)
                request.y = UInt32(rect.y)
                request.width = UInt32(rect.width)
                request.height = UInt32(rect.height)
                request.lossy = info.coding == .lossy ? 1 : 0
                request.from_top = info.alphaFiltered ? 1 : 0
                request.channels = UInt32(channels)
                request.destination = pixels
                request.destination_stride = rect.width * channels
                request.ready = ready
                request.context = context
                let status = ck_webp_decode(&request)
                message = cMessage(request.message)
                return status
            }
        }
        switch status {
        case Int32(CK_STATUS_OK): break
        case Int32(CK_STATUS_OUT_OF_MEMORY): throw .outOfMemory(detail: "libwebp: \(message)")
        case Int32(CK_STATUS_CANNOT_OPEN): throw RuntimeLibrary.libwebp.missing
        default: throw .corrupt(format: .webp, detail: message)
        }
        let image = RasterImage(
            width: rect.width, height: rect.height, colorType: info.hasAlpha ? .rgba : .rgb,
            bitDepth: 8, samples: samples)
        return DecodedImage(image: image, warnings: info.warnings)
    }

    /// The image alone as a WebP: the bitstream chunk, after a VP8X header
    /// and the ALPH chunk when a VP8 image has alpha.
    static func minimalFile(_ info: WebPFileInfo, input: ImageInput) throws(ImagingError)
        -> [UInt8]
    {
        let alpha = try info.alphaChunk.map { alpha throws(ImagingError) in
            try input.read(at: alpha.offset, count: alpha.size, format: .webp)
        }
        let bitstream = try input.read(
            at: info.bitstream.offset, count: info.bitstream.size, format: .webp)
        return WebPContainer.stillFile(
            bitstream: bitstream, type: info.bitstream.type, alpha: alpha, width: info.width,
            height: info.height)
    }
}

/// The RIFF container of a WebP, written: chunks, the VP8X header, the form.
enum WebPContainer {
    /// VP8X's flag for an ICC profile.
    static let iccFlag: UInt8 = 0x20
    /// VP8X's flag for alpha.
    static let alphaFlag: UInt8 = 0x10
    /// VP8X's flag for EXIF.
    static let exifFlag: UInt8 = 0x08
    /// VP8X's flag for XMP.
    static let xmpFlag: UInt8 = 0x04

    /// A chunk: its FourCC, its size, its payload, a pad byte if odd.
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var bytes = Array(type.utf8.prefix(4))
        bytes += le32(payload.count)
        bytes += payload
        if payload.count % 2 == 1 { bytes.append(0) }
        return bytes
    }

    /// The extended format's header chunk for a `width`×`height` canvas.
    static func vp8x(flags: UInt8, width: Int, height: Int) -> [UInt8] {
        let w = width - 1
        let h = height - 1
        return chunk(
            "VP8X",
            [flags, 0, 0, 0]
                + [UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF)]
                + [UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16 & 0xFF)])
    }

    /// The RIFF WEBP form holding `chunks`.
    /// A still WebP of one bitstream: after a VP8X header of `width` ×
    /// `height` when there is an ALPH chunk or `extended` (a reader then
    /// checks the bitstream's size against it), the ALPH chunk, the
    /// bitstream.
    static func stillFile(
        bitstream: [UInt8], type: String, alpha: [UInt8]?, width: Int, height: Int,
        extended: Bool = false
    ) -> [UInt8] {
        var chunks: [[UInt8]] = []
        if alpha != nil || extended {
            chunks.append(vp8x(flags: alpha != nil ? alphaFlag : 0, width: width, height: height))
        }
        if let alpha { chunks.append(chunk("ALPH", alpha)) }
        chunks.append(chunk(type, bitstream))
        return riff(chunks)
    }

    static func riff(_ chunks: [[UInt8]]) -> [UInt8] {
        let size = 4 + chunks.reduce(0) { $0 + $1.count }
        var bytes = Array("RIFF".utf8) + le32(size) + Array("WEBP".utf8)
        bytes.reserveCapacity(8 + size)
        for chunk in chunks { bytes += chunk }
        return bytes
    }

    static func le32(_ value: Int) -> [UInt8] {
        [
            UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF),
            UInt8(value >> 24 & 0xFF),
        ]
    }

    /// The chunks of a WebP libwebp wrote: `(type, payload)` in order.
    static func chunks(of file: [UInt8]) -> [(type: String, payload: [UInt8])] {
        var found: [(String, [UInt8])] = []
        var offset = 12
        while offset + 8 <= file.count {
            let type = String(decoding: file[offset..<offset + 4], as: UTF8.self)
            let size = WebPFileInfo.le32(file, offset + 4)
            guard size <= file.count - offset - 8 else { break }
            found.append((type, Array(file[offset + 8..<offset + 8 + size])))
            offset += 8 + size + size % 2
        }
        return found
    }
}
