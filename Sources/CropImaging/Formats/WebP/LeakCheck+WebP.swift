import CropGeometry

/// The leak rules for WebP: what in a WebP file could show more than its
/// image.
extension LeakCheck {
    static func webpFindings(_ info: WebPFileInfo, input: ImageInput) throws(ImagingError)
        -> [LeakFinding]
    {
        var found: [LeakFinding] = []
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        let image: Set<String> = ["VP8 ", "VP8L", "ALPH"]
        for chunk in info.chunks where !image.contains(chunk.type) && chunk.size <= 64 << 20 {
            let data = try input.read(at: chunk.offset, count: chunk.size, format: .webp)
            let place = "\"\(chunk.type)\" chunk"
            if let embedded = embeddedImage(data) {
                found.append(LeakFinding(place: place, kind: .embeddedImage, detail: embedded))
            }
            if chunk.type == "EXIF" {
                var tiff = data
                if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
                for leak in EXIFRewriter(tiff: tiff)?.leaks(size: size) ?? [] {
                    found.append(LeakFinding(place: place, leak))
                }
            }
        }
        found += xmpFindings(info.xmp, place: "\"XMP \" chunk")
        let images = info.chunks.filter { $0.type == "VP8 " || $0.type == "VP8L" }
        if images.count > 1 {
            found.append(
                LeakFinding(
                    place: "\"\(images[1].type)\" chunk", kind: .embeddedImage,
                    detail: "a second image bitstream (\(images.count) in all)"))
        }
        if info.endOfImage < input.byteCount {
            found.append(
                try trailingFinding(
                    place: "after the RIFF form", end: info.endOfImage, input: input,
                    format: .webp))
        }
        return found
    }
}
