import CropGeometry
import Foundation

/// Google's depth photo (the Camera app's "lens blur", Android's dynamic
/// depth before it): a depth map as a base64 PNG in the `GDepth:Data`
/// property of the photo's extended XMP, its range (`GDepth:Near`, `Far`,
/// `Format`, `Mime`) in the main XMP, and often the unblurred original in
/// `GImage:Data`. A crop cuts the depth map by the companion rule and
/// writes it back as a new extended XMP packet (its GUID the packet's MD5,
/// as the XMP specification asks); `GImage:Data`, the whole photo, is
/// removed.
enum GoogleDepth {
    /// The namespace of `GDepth:`.
    static let namespace = "http://ns.google.com/photos/1.0/depthmap/"

    /// The depth map's PNG in the extended XMP of `info` that its main
    /// XMP names (`xmpNote:HasExtendedXMP`), or `nil` when it has none.
    static func find(_ info: JPEGFileInfo, input: ImageInput) throws(ImagingError) -> [UInt8]? {
        guard let text = try extendedPacket(info, input: input) else { return nil }
        return depthPNG(inPacket: text)
    }

    /// The extended XMP packet of `info`: its chunks (by the GUID of the
    /// first one) put together at their offsets, within the metadata
    /// limit; `nil` when it has none or the chunks do not fill it.
    static func extendedPacket(_ info: JPEGFileInfo, input: ImageInput) throws(ImagingError)
        -> [UInt8]?
    {
        let signature = JPEGMetadata.extendedXMPSignature
        var guid: String?
        var packet: [UInt8] = []
        var filled = 0
        for segment in info.segments where segment.marker == 0xE1 {
            guard segment.bodyLength > signature.count + 40 else { continue }
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            guard body.starts(with: signature), let own = ExtendedXMP.guid(body) else { continue }
            if guid == nil { guid = own }
            guard own == guid else { continue }
            let at = signature.count + 32
            let total = (0..<4).reduce(0) { $0 << 8 | Int(body[at + $1]) }
            let offset = (0..<4).reduce(0) { $0 << 8 | Int(body[at + 4 + $1]) }
            guard total <= 64 << 20 else {
                throw .limitExceeded(.metadataBytes, limit: 64 << 20, actual: total)
            }
            if packet.isEmpty { packet = [UInt8](repeating: 0, count: total) }
            let chunk = body[(at + 8)...]
            guard packet.count == total, offset + chunk.count <= total else { return nil }
            packet.replaceSubrange(offset..<offset + chunk.count, with: chunk)
            filled += chunk.count
        }
        return guid != nil && filled == packet.count ? packet : nil
    }

    /// The PNG that `GDepth:Data` (an attribute or an element) holds in
    /// `packet`, base64-decoded; `nil` when there is none.
    static func depthPNG(inPacket packet: [UInt8]) -> [UInt8]? {
        let text = String(decoding: packet, as: UTF8.self)
        let value: Substring
        if let start = text.range(of: "GDepth:Data=\"")?.upperBound,
            let end = text[start...].firstIndex(of: "\"")
        {
            value = text[start..<end]
        } else if let open = text.range(of: "<GDepth:Data>")?.upperBound,
            let close = text[open...].range(of: "</GDepth:Data>")?.lowerBound
        {
            value = text[open..<close]
        } else {
            return nil
        }
        let cleaned = value.filter { !$0.isWhitespace }
        return Data(base64Encoded: String(cleaned)).map { [UInt8]($0) }
    }

    /// The depth map `png` opened within `limits`, and its grid beside a
    /// photo of `photo` stored pixels; throws when it is not aligned.
    private static func opened(
        _ png: [UInt8], photo: PixelSize<StoredPixels>, limits: DecodeLimits
    ) throws(ImagingError) -> (ImageSource, CompanionGrid<StoredPixels>) {
        let map = try ImageSource(ImageInput(bytes: png, name: "depth map"), limits: limits)
        guard
            let grid = CompanionGrid(imageSize: photo, companionSize: map.storedSize),
            grid.isAligned
        else {
            throw .unsupported(
                format: .jpeg,
                detail: "it (\(map.storedSize)) is not aligned to the \(photo) photo")
        }
        return (map, grid)
    }

    /// The depth map cut by the companion rule for the crop `rect` of a
    /// photo of `photo` stored pixels: its pixels copied where the rect
    /// lies on whole depth pixels, else sampled (8-bit maps), as a PNG; and
    /// the report's words. Throws why it cannot be cut.
    static func cut(
        _ png: [UInt8], photo: PixelSize<StoredPixels>, rect: PixelRect<StoredPixels>,
        limits: DecodeLimits, lenient: Bool
    ) throws(ImagingError) -> (png: [UInt8], size: PixelSize<StoredPixels>, how: String) {
        let (map, grid) = try opened(png, photo: photo, limits: limits)
        let cut = grid.cut(rect)
        let image: RasterImage
        let how: String
        if let copy = cut.copyRect {
            var decoded = try map.decode(copy, lenient: lenient).image
            decoded.chunks = []
            image = decoded
            how = "its pixels copied (\(copy) of its \(grid.companionSize))"
        } else {
            let read = cut.readRect
            let decoded = try map.decode(read, lenient: lenient).image
            guard decoded.bitDepth == 8 else {
                throw .unsupported(
                    format: .jpeg,
                    detail: "a \(decoded.bitDepth)-bit depth map between its pixels is not sampled")
            }
            image = GainMap.sample(decoded, at: read, cut: cut)
            how = "sampled between its pixels by the companion rule"
        }
        let encoded = try PNGEncoder().encode(image)
        return (encoded, cut.size, how)
    }

    /// The depth map resampled with a turned or resized crop of a photo
    /// of `photo` stored pixels seen in `orientation`
    /// (``CompanionResample``: its scale kept against the output, each
    /// pixel the bilinear sample at the crop's sample position), upright as
    /// the crop is, as a PNG; and the report's words. Throws why it cannot
    /// be (a map of more than 8 bits, or none at its scale).
    static func resample(
        _ png: [UInt8], photo: PixelSize<StoredPixels>, orientation: EXIFOrientation,
        crop: StraightenedCrop, limits: DecodeLimits, lenient: Bool
    ) throws(ImagingError) -> (png: [UInt8], size: PixelSize<StoredPixels>, how: String) {
        let (map, _) = try opened(png, photo: photo, limits: limits)
        let whole = PixelRect<StoredPixels>(
            x: 0, y: 0, width: map.storedSize.width, height: map.storedSize.height)
        let decoded = try map.decode(whole, lenient: lenient).image
        guard decoded.bitDepth == 8 else {
            throw .unsupported(
                format: .jpeg,
                detail: "a \(decoded.bitDepth)-bit depth map is not resampled")
        }
        let shown = orientation.orientedSize(photo)
        guard
            let image = CompanionResample.resample(
                decoded.oriented(orientation),
                photo: PixelSize(width: shown.width, height: shown.height), crop: crop)
        else {
            throw .unsupported(format: .jpeg, detail: "it has no crop at its scale")
        }
        return (
            try PNGEncoder().encode(image), PixelSize(width: image.width, height: image.height),
            "resampled with the crop, each pixel at the crop's sample position"
        )
    }

    /// The pixels of the depth map `png` by its header (`IHDR`), so that
    /// the map decoded whole counts against the memory limit before it is
    /// decoded; 0 when the header cannot be read.
    static func pixels(_ png: [UInt8]) -> Int {
        guard png.count >= 24 else { return 0 }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(png[at + $1]) } }
        return saturatingProduct(u32(16), u32(20), 1)
    }

    /// The extended XMP packet that holds `png` as `GDepth:Data`, and its
    /// GUID (the packet's MD5, 32 hexadecimal digits, upper case).
    static func packet(holding png: [UInt8]) -> (packet: [UInt8], guid: String) {
        let text =
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" xmlns:GDepth=\"\(namespace)\" GDepth:Data=\""
            + Data(png).base64EncodedString() + "\"/></rdf:RDF></x:xmpmeta>"
        let packet = Array(text.utf8)
        let guid = MD5.digest(packet).map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
        return (packet, guid)
    }

    /// `packet` as extended XMP segments (whole, marker and length
    /// included): each the signature, the GUID, the whole length and its
    /// offset, and at most 65,458 bytes of the packet.
    static func segments(_ packet: [UInt8], guid: String) -> [UInt8] {
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (24 - 8 * $0) & 0xFF) } }
        var out: [UInt8] = []
        var offset = 0
        let room = 65_533 - JPEGMetadata.extendedXMPSignature.count - 40
        repeat {
            let chunk = packet[offset..<min(offset + room, packet.count)]
            out += JPEGMetadata.segment(
                0xE1,
                JPEGMetadata.extendedXMPSignature + Array(guid.utf8) + u32(packet.count)
                    + u32(offset) + chunk)
            offset += chunk.count
        } while offset < packet.count
        return out
    }

    /// `xmp` (a main XMP packet) naming `guid` as its extended XMP.
    static func naming(_ guid: String, in xmp: String) -> String {
        let property = "xmpNote:HasExtendedXMP=\"\(guid)\""
        if let range = xmp.range(
            of: "xmpNote:HasExtendedXMP=\"[^\"]*\"", options: .regularExpression)
        {
            return xmp.replacingCharacters(in: range, with: property)
        }
        guard let description = xmp.range(of: "<rdf:Description") else { return xmp }
        let declaration =
            xmp.contains("xmlns:xmpNote=") ? "" : " xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\""
        return xmp.replacingCharacters(
            in: description, with: "<rdf:Description\(declaration) \(property)")
    }
}

/// MD5 (RFC 1321), for the GUID the XMP specification gives an extended
/// XMP packet. Not for security.
enum MD5 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        let shifts: [UInt32] = [
            7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
            5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
            4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
            6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
        ]
        let constants: [UInt32] = (0..<64).map { i in
            UInt32(truncatingIfNeeded: Int64(abs(sin(Double(i + 1))) * 4_294_967_296))
        }
        var state: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476]
        var data = message
        let bits = UInt64(message.count) &* 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for i in 0..<8 { data.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        for block in stride(from: 0, to: data.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                let at = block + 4 * i
                words[i] =
                    UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16
                    | UInt32(data[at + 3]) << 24
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: (f, g) = ((b & c) | (~b & d), i)
                case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * i + 1) % 16)
                case 32..<48: (f, g) = (b ^ c ^ d, (3 * i + 5) % 16)
                default: (f, g) = (c ^ (b | ~d), (7 * i) % 16)
                }
                f = f &+ a &+ constants[i] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ (f << shifts[i] | f >> (32 - shifts[i]))
            }
            state = [state[0] &+ a, state[1] &+ b, state[2] &+ c, state[3] &+ d]
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }
}
