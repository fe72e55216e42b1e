internal import CImagingShims
import CropGeometry

extension DemoPhoto {
    /// An iPhone-like HEIC made on the spot with libheif's HEVC encoder: the
    /// picture stored sideways as a grid of `tile`×`tile` tiles (the last row
    /// and column partly outside the image unless the size is a multiple) with `irot 270` and EXIF orientation 6, an
    /// nclx colour, an EXIF block holding a thumbnail, a thumbnail item and
    /// an HDR gain-map auxiliary image: everything a crop must drop; and,
    /// when given, `xmp` as an XMP item.
    ///
    /// - Throws: ``ImagingError/unsupported(format:detail:)`` where libheif
    ///   cannot encode HEVC.
    package static func heic(width: Int, height: Int, tile: Int = 256, xmp: String? = nil)
        throws(ImagingError) -> [UInt8]
    {
        guard ck_heif_can_encode() != 0 else {
            throw .unsupported(format: .heif, detail: "libheif here cannot encode HEVC")
        }
        let picture = picture(width: width, height: height)
        var writer = HEIFFileWriter()
        // BT.601, full range: what the planes are converted with.
        let nclx: [UInt8] = {
            var w = HEIFBoxWriter()
            w.begin("colr")
            w.fourCC("nclx")
            w.u16(1)
            w.u16(13)
            w.u16(6)
            w.u8(0x80)
            w.end()
            return w.bytes
        }()
        let columns = (width + tile - 1) / tile
        let rows = (height + tile - 1) / tile
        var tiles: [Int] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let coded = try encode(
                    picture, x: column * tile, y: row * tile, width: tile, height: tile)
                let item = writer.addItem(
                    type: "hvc1", hidden: true,
                    properties: [
                        (coded.hvcC, true), (HEIFFileWriter.ispe(width: tile, height: tile), false),
                        (nclx, false),
                    ])
                writer.setData(item, .bytes(coded.data))
                tiles.append(item)
            }
        }
        let rotation = HEIFFileWriter.transformBoxes(.right)
        let grid = writer.addGrid(
            of: tiles, rows: rows, columns: columns, width: width, height: height,
            properties: [(nclx, false)] + rotation.boxes.map { ($0, true) })
        writer.primary = grid
        // A thumbnail and a gain map of the whole photo.
        let small = picture.scaled(toWidth: 256, height: 192)
        for (role, reference) in [
            ("", "thmb"), ("urn:com:apple:photo:2020:aux:hdrgainmap", "auxl"),
        ] {
            let coded = try encode(small, x: 0, y: 0, width: 256, height: 192)
            var properties: [([UInt8], Bool)] = [
                (coded.hvcC, true), (HEIFFileWriter.ispe(width: 256, height: 192), false),
                (nclx, false),
            ]
            if role.isEmpty {
                properties += rotation.boxes.map { ($0, true) }
            } else {
                var w = HEIFBoxWriter()
                w.begin("auxC", version: 0)
                w.string(role)
                w.end()
                properties.append((w.bytes, true))
            }
            let item = writer.addItem(type: "hvc1", hidden: !role.isEmpty, properties: properties)
            writer.setData(item, .bytes(coded.data))
            writer.reference(reference, from: item, to: [grid])
        }
        let thumbnail = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 16, height: 16), horizontal: [1, 1, 1], vertical: [1, 1, 1])
        let exifItem = writer.addItem(type: "Exif", hidden: true, properties: [])
        writer.setData(exifItem, .bytes([0, 0, 0, 0] + exif(thumbnail: thumbnail, orientation: 6)))
        writer.reference("cdsc", from: exifItem, to: [grid])
        if let xmp {
            let item = writer.addItem(
                type: "mime", hidden: true, properties: [], contentType: "application/rdf+xml")
            writer.setData(item, .bytes(Array(xmp.utf8)))
            writer.reference("cdsc", from: item, to: [grid])
        }
        let sink = MemorySink()
        _ = try writer.write(to: sink, input: ImageInput(bytes: [], name: "(none)"))
        return sink.bytes
    }

    /// `width`×`height` of `image` from (`x`, `y`) (its edge repeated
    /// beyond it), as BT.601 full-range YCbCr 4:2:0, encoded at quality 90:
    /// the coded image's `hvcC` and bytes.
    static func encode(_ image: RasterImage, x: Int, y: Int, width: Int, height: Int)
        throws(ImagingError) -> (hvcC: [UInt8], data: [UInt8])
    {
        var luma = [UInt8](repeating: 0, count: width * height)
        var cb = [UInt8](repeating: 0, count: width / 2 * height / 2)
        var cr = cb
        func rgb(_ px: Int, _ py: Int) -> (Double, Double, Double) {
            let sx = min(max(px, 0), image.width - 1)
            let sy = min(max(py, 0), image.height - 1)
            let i = (sy * image.width + sx) * 3
            return (
                Double(image.samples[i]), Double(image.samples[i + 1]), Double(image.samples[i + 2])
            )
        }
        func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        for row in 0..<height {
            for column in 0..<width {
                let (r, g, b) = rgb(x + column, y + row)
                luma[row * width + column] = clamp(0.299 * r + 0.587 * g + 0.114 * b)
            }
        }
        for row in 0..<height / 2 {
            for column in 0..<width / 2 {
                var (u, v) = (0.0, 0.0)
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (r, g, b) = rgb(x + 2 * column + dx, y + 2 * row + dy)
                    u += -0.168736 * r - 0.331264 * g + 0.5 * b
                    v += 0.5 * r - 0.418688 * g - 0.081312 * b
                }
                cb[row * width / 2 + column] = clamp(128 + u / 4)
                cr[row * width / 2 + column] = clamp(128 + v / 4)
            }
        }
        var request = ck_heif_encode_request()
        request.width = UInt32(width)
        request.height = UInt32(height)
        request.bit_depth = 8
        request.chroma = 1
        request.quality = 90
        request.plane_width = (UInt32(width), UInt32(width / 2), UInt32(width / 2))
        request.plane_height = (UInt32(height), UInt32(height / 2), UInt32(height / 2))
        var status: Int32 = 0
        let file: [UInt8]? = luma.withUnsafeBufferPointer { y in
            cb.withUnsafeBufferPointer { u in
                cr.withUnsafeBufferPointer { v in
                    request.planes = (y.baseAddress, u.baseAddress, v.baseAddress)
                    status = ck_heif_encode_planes(&request)
                    guard status == CK_STATUS_OK, let bytes = request.file else { return nil }
                    defer { ck_free(bytes) }
                    return Array(UnsafeBufferPointer(start: bytes, count: request.file_size))
                }
            }
        }
        guard let file else {
            throw .unsupported(format: .heif, detail: "encoding: \(cMessage(request.message))")
        }
        let info = try HEIFFileInfo.read(ImageInput(bytes: file, name: "tile"), limits: .standard)
        guard let coded = info.layout.tiles.first else {
            throw .unsupported(format: .heif, detail: "the encoder wrote no image")
        }
        return (coded.configuration, coded.extents.flatMap { Array(file[$0]) })
    }
}

extension RasterImage {
    /// An 8-bit RGB image scaled to `width`×`height` by taking the nearest
    /// pixel: a thumbnail for the demo.
    func scaled(toWidth width: Int, height: Int) -> RasterImage {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let from = ((y * self.height / height) * self.width + x * self.width / width) * 3
                for c in 0..<3 { out[(y * width + x) * 3 + c] = samples[from + c] }
            }
        }
        return RasterImage(width: width, height: height, colorType: .rgb, bitDepth: 8, samples: out)
    }
}
