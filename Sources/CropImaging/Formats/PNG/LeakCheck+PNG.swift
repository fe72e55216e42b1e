import CropGeometry
import Foundation

/// The leak rules for PNG: what in a PNG file could show more than its
/// primary image.
extension LeakCheck {
    /// - Parameter animated: Whether the file is an APNG, whose `fdAT`
    ///   chunks are its frames' image data; in a still PNG they are pixels
    ///   no decoder shows, a finding.
    static func pngFindings(_ info: PNGFileInfo, input: ImageInput, animated: Bool = false)
        throws(ImagingError) -> [LeakFinding]
    {
        var found: [LeakFinding] = []
        // The XMP packets' findings, said after the chunks' own.
        var xmp: [LeakFinding] = []
        // Every chunk but the image data, read from the file: the ones a
        // crop does not carry can hold images too.
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        var hiddenFrames = 0
        try forEachPNGChunk(in: input, upTo: 64 << 20, except: "IDAT") { type, data in
            if type == "fdAT" {
                if !animated { hiddenFrames += 1 }
                return
            }
            if let image = embeddedImage(data) {
                found.append(LeakFinding(place: type, kind: .embeddedImage, detail: image))
            } else if type == "iCCP",
                let profile = ICCProfile.profile(fromICCP: PNGChunk(type: type, data: data)),
                let image = embeddedImage(profile) ?? embeddedTIFF(profile)
            {
                // Compressed: searched once inflated.
                found.append(
                    LeakFinding(
                        place: type, kind: .embeddedImage, detail: "its profile holds \(image)"))
            }
            // The XMP packet as `metadata(in:)` reads it (at most 16 MiB).
            if type == "iTXt", data.count <= 16 << 20,
                let packet = PNGFileInfo.xmpPacket(inITXt: data)
            {
                xmp += xmpFindings(Array(packet), place: "iTXt XMP")
            }
            if type == "eXIf" {
                for leak in EXIFRewriter(tiff: data)?.leaks(size: size) ?? [] {
                    found.append(LeakFinding(place: "eXIf", leak))
                }
            }
        }
        found += xmp
        if hiddenFrames > 0 {
            found.append(
                LeakFinding(
                    place: "fdAT", kind: .hiddenPixels,
                    detail:
                        "\(hiddenFrames) chunk(s) of APNG frame data in a PNG that is not an APNG: pixels a decoder never shows"
                ))
        }
        if let end = info.endOfImage, end < input.byteCount {
            found.append(
                try trailingFinding(place: "after IEND", end: end, input: input, format: .png))
        }
        return found
    }

    /// Calls `body` with the type and data of every chunk of the PNG in
    /// `input` up to IEND, read from the file, but those of type `skipped`
    /// and those longer than `limit` bytes; stops at a length that runs
    /// past the file.
    static func forEachPNGChunk(
        in input: ImageInput, upTo limit: Int, except skipped: String,
        _ body: (String, [UInt8]) throws(ImagingError) -> Void
    ) throws(ImagingError) {
        var offset = 8
        while offset + 12 <= input.byteCount {
            let header = try input.read(at: offset, count: 8, format: .png)
            let length =
                Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length >= 0, offset + 12 + length <= input.byteCount else { break }
            if type != skipped && length <= limit {
                try body(type, try input.read(at: offset + 8, count: length, format: .png))
            }
            offset += 12 + length
            if type == "IEND" { break }
        }
    }
}
