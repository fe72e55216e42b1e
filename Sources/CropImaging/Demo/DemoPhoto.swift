import CropGeometry

/// A phone-like JPEG made on the spot, holding every kind of metadata a
/// crop must treat with care: an EXIF thumbnail (IFD1), a MakerNote with a
/// preview, GPS, stale dimensions, an XMP preview, an MPF index and a gain
/// map after the end of the image. For the demo and the tests.
package enum DemoPhoto {
    /// A smooth, textured picture of `width`×`height`, RGB (or its red
    /// channel alone as gray): gradients and a fine pattern, so every 8x8
    /// block has coefficients of its own.
    package static func picture(width: Int, height: Int, gray: Bool = false) -> RasterImage {
        let channels = gray ? 1 : 3
        var samples = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * channels
                samples[i] = UInt8((x * 255 / max(width - 1, 1) + (x * y) % 37) & 0xFF)
                guard !gray else { continue }
                samples[i + 1] = UInt8((y * 255 / max(height - 1, 1) + (x ^ y) % 29) & 0xFF)
                samples[i + 2] = UInt8(((x + y) * 3 + (x * 7 + y * 13) % 41) & 0xFF)
            }
        }
        return RasterImage(
            width: width, height: height, colorType: gray ? .gray : .rgb, bitDepth: 8,
            samples: samples)
    }

    /// The photo: 4:2:0, EXIF orientation `orientation`, every leak there is.
    package static func jpeg(width: Int, height: Int, orientation: Int = 1) throws(ImagingError)
        -> [UInt8]
    {
        let thumbnail = try JPEGEncoder.encoded(
            picture(width: 16, height: 16), horizontal: [1, 1, 1], vertical: [1, 1, 1])
        var markers: [UInt8] = []
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            markers += JPEGMetadata.segment(marker, body)
        }
        segment(
            0xE1, JPEGMetadata.exifSignature + exif(thumbnail: thumbnail, orientation: orientation))
        segment(
            0xE1,
            JPEGMetadata.xmpSignature
                + Array(
                    "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><rdf:Description exif:PixelXDimension=\"4032\" exif:PixelYDimension=\"3024\" GImage:Data=\"/9j/4AAQSkZJRg\"/></rdf:RDF></x:xmpmeta>"
                        .utf8))
        segment(0xE2, Array("MPF\0".utf8) + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0])
        segment(0xED, photoshop(thumbnail: thumbnail))
        let main = try JPEGEncoder.encoded(
            picture(width: width, height: height), quality: 90, horizontal: [2, 1, 1],
            vertical: [2, 1, 1], markers: markers)
        // A gain map after the end of the image, as an iPhone appends it.
        return main + thumbnail
    }

    /// A big-endian TIFF structure: IFD0 (orientation, GPS and Exif
    /// pointers), an Exif IFD (stale dimensions, a MakerNote holding a
    /// preview), a GPS IFD and an IFD1 with a JPEG thumbnail.
    package static func exif(thumbnail: [UInt8], orientation: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value
                + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // Offsets: header 8; IFD0 at 8 (3 entries: 42 bytes) → 50; the Exif
        // IFD at 50 (3 entries: 42) → 92; the MakerNote's data at 92.
        let makerNote = Array("MAKER".utf8) + thumbnail
        let gpsAt = 92 + makerNote.count + (makerNote.count % 2)
        let ifd1At = gpsAt + 2 + 12 + 4
        let thumbnailAt = ifd1At + 2 + 24 + 4
        var out: [UInt8] = [0x4D, 0x4D] + u16(42) + u32(8)
        out +=
            u16(3) + entry(0x0112, 3, 1, u16(orientation)) + entry(0x8769, 4, 1, u32(50))
            + entry(0x8825, 4, 1, u32(gpsAt)) + u32(ifd1At)
        out +=
            u16(3) + entry(0x927C, 7, makerNote.count, u32(92)) + entry(0xA002, 4, 1, u32(4032))
            + entry(0xA003, 4, 1, u32(3024)) + u32(0)
        out += makerNote + (makerNote.count % 2 == 1 ? [0] : [])
        out += u16(1) + entry(0x0000, 1, 4, [2, 2, 0, 0]) + u32(0)
        out +=
            u16(2) + entry(0x0201, 4, 1, u32(thumbnailAt))
            + entry(0x0202, 4, 1, u32(thumbnail.count))
            + u32(0)
        return out + thumbnail
    }

    /// Photoshop image resources: IPTC (0x0404) and a JPEG thumbnail (0x040C).
    package static func photoshop(thumbnail: [UInt8]) -> [UInt8] {
        func resource(_ id: Int, _ data: [UInt8]) -> [UInt8] {
            let size = data.count
            return Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
                + [
                    UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF),
                    UInt8(size & 0xFF),
                ]
                + data + (size % 2 == 1 ? [0] : [])
        }
        let iptc: [UInt8] = [0x1C, 0x02, 0x78, 0x00, 0x05] + Array("hello".utf8)
        return Array("Photoshop 3.0\0".utf8) + resource(0x0404, iptc)
            + resource(0x040C, [0, 0, 0, 1] + thumbnail)
    }
}
