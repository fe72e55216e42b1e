import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Round four's WebP container gauntlet: generated WebPs whose RIFF form
/// lies (sizes, flags, chunks duplicated, cut or hiding another image),
/// each with the outcome it must have. A crop either decodes the right
/// pixels (checked against the "coordinates" formula, R = x & 255,
/// G = y & 255 of the displayed position) into an output that carries
/// nothing of the hostile part, or is refused with exit 2, a message naming
/// the problem and nothing written. Every run ends in under 2 s.
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: RuntimeLibrary.libwebp.isAvailable, "needs libwebp.so.7 (Debian: libwebp7)"))
struct WebPContainerGauntletTests {
    /// What a case must come to.
    enum Outcome: Sendable, CustomStringConvertible {
        /// Cropped, the pixels right, displayed `width`x`height`.
        case decodes(width: Int, height: Int)
        /// Exit 2, the message holding this text, no output.
        case refused(String)  // never empty: "".contains("") is false

        var description: String {
            switch self {
            case .decodes(let width, let height): "decodes \(width)x\(height)"
            case .refused(let text): "refused (\(text))"
            }
        }
    }

    /// A chunk: its FourCC and payload.
    typealias Chunk = (type: String, payload: [UInt8])

    static let lossless = "webp/generated/coords_exif6_icc_xmp_97x61_lossless.webp"
    static let lossyAlpha = "webp/generated/coords_rgba_lossy_q90_97x61.webp"

    /// The chunks of a WebP file.
    static func chunks(_ path: String) throws -> [Chunk] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestData.path(path))))
        var out: [Chunk] = []
        var at = 12
        while at + 8 <= bytes.count {
            let size =
                Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16
                | Int(bytes[at + 7]) << 24
            out.append(
                (
                    String(decoding: bytes[at..<at + 4], as: UTF8.self),
                    Array(bytes[at + 8..<at + 8 + size])
                ))
            at += 8 + size + size % 2
        }
        return out
    }

    static func le32(_ value: Int) -> [UInt8] {
        [
            UInt8(value & 255), UInt8(value >> 8 & 255), UInt8(value >> 16 & 255),
            UInt8(value >> 24 & 255),
        ]
    }

    /// A chunk's bytes, padded to an even size; `size` overrides the size
    /// field (a lie).
    static func chunk(_ chunk: Chunk, size: Int? = nil, pad: Bool = true) -> [UInt8] {
        Array(chunk.type.utf8) + le32(size ?? chunk.payload.count) + chunk.payload
            + (pad && chunk.payload.count % 2 == 1 ? [0] : [])
    }

    /// A RIFF form of `body`; `size` overrides the RIFF size (a lie).
    static func riff(_ body: [UInt8], size: Int? = nil) -> [UInt8] {
        Array("RIFF".utf8) + le32(size ?? body.count + 4) + Array("WEBP".utf8) + body
    }

    static func form(_ chunks: [Chunk]) -> [UInt8] { riff(chunks.flatMap { chunk($0) }) }

    /// `chunks` with the VP8X flags byte set to `flags`.
    static func flagged(_ chunks: [Chunk], _ flags: UInt8) -> [Chunk] {
        chunks.map { $0.type == "VP8X" ? ($0.type, [flags] + $0.payload.dropFirst()) : $0 }
    }

    /// A whole JPEG of a picture: the kind of thing a hostile chunk hides.
    static let jpeg: [UInt8] = SyntheticJPEG.baselineGray(width: 640, height: 480)

    /// Every case: a name, the file, what it must come to, and a part of
    /// the file that no output may hold.
    static func cases() throws -> [(
        name: String, bytes: [UInt8], outcome: Outcome, secret: [UInt8]?
    )] {
        let base = try chunks(lossless)  // VP8X ICCP VP8L EXIF XMP, EXIF orientation 6
        let alpha = try chunks(lossyAlpha)  // VP8X ALPH VP8
        let whole = form(base)
        let shown = Outcome.decodes(width: 97, height: 61)
        let image = base.first { $0.type == "VP8L" }!
        let exif = base.first { $0.type == "EXIF" }!
        var cases: [(String, [UInt8], Outcome, [UInt8]?)] = [
            ("valid", whole, shown, nil),
            (
                "RIFF size past the end", riff(Array(whole[12...]), size: whole.count + 100),
                .refused("truncated"), nil
            ),
            (
                "RIFF size ending inside a chunk",
                riff(Array(whole[12...]), size: whole.count - 30),
                .refused("past the end of the form"), nil
            ),
            (
                "RIFF size odd, the last chunk's pad byte outside it",
                riff(
                    Array(whole[12...]) + chunk(("zzzz", [1, 2, 3])), size: whole.count - 8 + 8 + 3),
                shown, nil
            ),
            (
                "RIFF size counting one byte past the last chunk",
                riff(Array(whole[12...]) + [0], size: whole.count - 8 + 1),
                .refused("1 stray bytes"), nil
            ),
            (
                "RIFF size 4 GiB", riff(Array(whole[12...]), size: 0xFFFF_FFFF),
                .refused("truncated"), nil
            ),
            (
                "chunk size 4 GiB",
                riff(chunk(base[0]) + chunk(("ICCP", base[1].payload), size: 0xFFFF_FFFF)),
                .refused("past the end of the form"), nil
            ),
            (
                "odd chunk with no pad byte",
                riff(
                    chunk(base[0]) + chunk(("zzzz", [1, 2, 3]), pad: false)
                        + base[1...].flatMap { chunk($0) }), .refused("past the end of the form"),
                nil
            ),
            (
                "stray bytes at the end", riff(Array(whole[12...]) + [1, 2, 3]),
                .refused("stray bytes"), nil
            ),
            ("no chunk", riff([]), .refused("no chunk"), nil),
            (
                "first chunk unknown", form([("zzzz", [0, 0])] + base),
                .refused("not VP8, VP8L or VP8X"), nil
            ),
            (
                "VP8X cut short", form([("VP8X", [0, 0, 0])] + base[1...]),
                .refused("VP8X chunk is 3 bytes"), nil
            ),
            (
                "VP8X says animation", form(flagged(base, base[0].payload[0] | 0x02)),
                .refused("animated"), nil
            ),
            (
                "ANIM chunk without the flag", form(base + [("ANIM", [0, 0, 0, 0, 0, 0])]),
                .refused("animated"), nil
            ),
            (
                "ANMF frames without the flag",
                form(base + [("ANMF", [UInt8](repeating: 0, count: 16))]), .refused("animated"), nil
            ),
            (
                "VP8X says alpha, none there", form(flagged(base, base[0].payload[0] | 0x10)),
                shown, nil
            ),
            ("VP8X says nothing of ICC, EXIF, XMP", form(flagged(base, 0)), shown, nil),
            ("VP8X says ICC, no ICCP", form(base.filter { $0.type != "ICCP" }), shown, nil),
            (
                "VP8X canvas 16383x16383 over a 97x61 image",
                form([("VP8X", [0x2C, 0, 0, 0, 0xFE, 0x3F, 0, 0xFE, 0x3F, 0])] + base[1...]),
                .refused("canvas is 16383x16383"), nil
            ),
            (
                "two EXIF chunks, the first says 6", form(base + [("EXIF", exifOrientation1())]),
                shown, nil
            ),
            ("two VP8L chunks", form(base + [image]), shown, nil),
            ("two ICCP chunks", form([base[0], base[1], base[1]] + base[2...]), shown, nil),
            (
                "VP8L cut to half",
                form(
                    base.map {
                        $0.type == "VP8L"
                            ? ($0.type, Array($0.payload.prefix($0.payload.count / 2))) : $0
                    }), .refused("bitstream error"), nil
            ),
            (
                "VP8L cut to its header",
                form(base.map { $0.type == "VP8L" ? ($0.type, Array($0.payload.prefix(5))) : $0 }),
                .refused("bitstream error"), nil
            ),
            (
                "VP8L signature wrong",
                form(
                    base.map { $0.type == "VP8L" ? ($0.type, [0x2E] + $0.payload.dropFirst()) : $0 }
                ), .refused("signature"), nil
            ),
            (
                "VP8L says 16384x16384 over 60 bytes",
                form([("VP8L", [0x2F, 0xFF, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 55))]),
                .refused("over the limit"), nil
            ),
            (
                "an unknown chunk holding a whole JPEG", form(base + [("JUNK", jpeg)]), shown,
                Array(jpeg[200..<232])
            ),
            ("a JPEG after the RIFF form", whole + jpeg, shown, Array(jpeg[200..<232])),
            (
                "an EXIF chunk that is not EXIF",
                form(base.map { $0.type == "EXIF" ? ($0.type, [1, 2, 3, 4]) : $0 }),
                .decodes(width: 61, height: 97), nil
            ),
            (
                "an EXIF chunk holding a JPEG",
                form(base.map { $0.type == "EXIF" ? ($0.type, exif.payload + jpeg) : $0 }), shown,
                Array(jpeg[200..<232])
            ),
            (
                "5000 empty chunks",
                riff(
                    chunk(base[0]) + [UInt8]((0..<5000).flatMap { _ in chunk(("zzzz", [])) })
                        + base[1...].flatMap { chunk($0) }), .refused("more than 4096 chunks"), nil
            ),
        ]
        // The lossy image with alpha.
        let lossy = alpha.first { $0.type == "VP8 " }!
        cases += [
            ("lossy with alpha", form(alpha), shown, nil),
            (
                "ALPH method 3",
                form(
                    alpha.map { $0.type == "ALPH" ? ($0.type, [3] + $0.payload.dropFirst()) : $0 }),
                .refused("ALPH compression method 3"), nil
            ),
            (
                "ALPH empty", form(alpha.map { $0.type == "ALPH" ? ($0.type, []) : $0 }),
                .refused("ALPH chunk is empty"), nil
            ),
            (
                "ALPH cut to 3 bytes",
                form(alpha.map { $0.type == "ALPH" ? ($0.type, Array($0.payload.prefix(3))) : $0 }),
                .refused("corrupt image or alpha data"), nil
            ),
            (
                "VP8 not a key frame",
                form(
                    alpha.map {
                        $0.type == "VP8 "
                            ? ($0.type, [$0.payload[0] | 1] + $0.payload.dropFirst()) : $0
                    }), .refused("not a key frame"), nil
            ),
            (
                "VP8 start code missing",
                form(
                    alpha.map {
                        $0.type == "VP8 "
                            ? (
                                $0.type,
                                Array($0.payload.prefix(3)) + [0, 0, 0] + $0.payload.dropFirst(6)
                            ) : $0
                    }), .refused("start code"), nil
            ),
            (
                "VP8 cut to half",
                form(
                    alpha.map {
                        $0.type == "VP8 "
                            ? ($0.type, Array($0.payload.prefix($0.payload.count / 2))) : $0
                    }), .refused("data ended early"), nil
            ),
            ("VP8 and a VP8L", form(alpha + [image]), shown, nil),
            (
                "a simple-format VP8 with ALPH after it",
                form([lossy] + alpha.filter { $0.type == "ALPH" }), shown, nil
            ),
        ]
        return cases.map { (name: $0.0, bytes: $0.1, outcome: $0.2, secret: $0.3) }
    }

    /// A minimal EXIF payload (TIFF, little-endian) with orientation 1.
    static func exifOrientation1() -> [UInt8] {
        Array("II".utf8) + [42, 0, 8, 0, 0, 0] + [1, 0] + [
            0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0,
        ]
            + [0, 0, 0, 0]
    }

    /// Whether `rgb` (Pillow's or CropKit's RGB, `width` wide) is the
    /// coordinates image's displayed pixels at (`left`, `top`).
    static func coordinateErrors(
        _ samples: [UInt8], channels: Int, width: Int, height: Int, left: Int, top: Int, lossy: Bool
    ) -> Int {
        var wrong = 0
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * channels
                let r = Int(samples[at])
                let g = Int(samples[at + 1])
                let tolerance = lossy ? 24 : 0
                if abs(r - ((left + x) & 255)) > tolerance || abs(g - ((top + y) & 255)) > tolerance
                {
                    wrong += 1
                }
            }
        }
        return wrong
    }

    @Test func everyCaseComesToItsOutcome() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var counts = (decoded: 0, refused: 0, wrong: 0)
        for item in try Self.cases() {
            let input = folder.appendingPathComponent("in.webp").path
            try Data(item.bytes).write(to: URL(fileURLWithPath: input))
            for output in ["out.png", "out.webp"] {
                let path = folder.appendingPathComponent(output).path
                try? FileManager.default.removeItem(atPath: path)
                // Each case's outcome below proves what the run did; no
                // clock is asserted (a busy machine is not a defect).
                let run = cropkit("crop", input, "--pixels", "2,3,40,30", "-o", path)
                switch item.outcome {
                case .refused(let text):
                    let ok =
                        run.status == 2 && run.err.contains(text) && run.err.contains("error: ")
                        && !FileManager.default.fileExists(atPath: path)
                    #expect(ok, "\(item.name) → \(output): status \(run.status), \(run.err)")
                    if ok { counts.refused += 1 } else { counts.wrong += 1 }
                case .decodes(let width, let height):
                    #expect(run.status == 0, "\(item.name) → \(output): \(run.err)")
                    guard run.status == 0 else {
                        counts.wrong += 1
                        continue
                    }
                    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                    let image = try decodedInMemory(bytes).eightBitRGBForTests()
                    #expect(image.width == 40 && image.height == 30)
                    // Pixels are checked where the image is shown upright
                    // (97x61); a case whose EXIF cannot be read is shown as
                    // stored (61x97) and checked for its size only.
                    let errors =
                        width != 97
                        ? 0
                        : Self.coordinateErrors(
                            image.samples, channels: image.channels, width: 40, height: 30, left: 2,
                            top: 3, lossy: item.name.contains("lossy") || item.name.contains("VP8 ")
                        )
                    #expect(errors == 0, "\(item.name) → \(output): \(errors) pixels wrong")
                    if let secret = item.secret {
                        #expect(
                            !Self.contains(bytes, secret),
                            "\(item.name): the output holds the hidden image")
                    }
                    let info = cropkit("info", input, "--json")
                    #expect(
                        info.out.contains("\"oriented\":{\"width\":\(width),\"height\":\(height)}"),
                        "\(item.name): \(info.out)")
                    counts.decoded += 1
                }
            }
        }
        print(
            "WebP container gauntlet: \(counts.decoded) decoded, \(counts.refused) refused, \(counts.wrong) wrong"
        )
        #expect(counts.wrong == 0)
        #expect(counts.decoded + counts.refused == 2 * (try Self.cases().count))
    }

    /// The source's hidden JPEG is what `leaks` finds in it.
    @Test func leaksFindsTheHiddenImages() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for item in try Self.cases() where item.secret != nil {
            let input = folder.appendingPathComponent("in.webp").path
            try Data(item.bytes).write(to: URL(fileURLWithPath: input))
            let run = cropkit("leaks", input)
            #expect(run.status == 1 && run.out.contains("JPEG"), "\(item.name): \(run.out)")
        }
    }

    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard let first = pattern.first, bytes.count >= pattern.count else { return false }
        for index in 0...(bytes.count - pattern.count) where bytes[index] == first {
            if bytes[index..<index + pattern.count].elementsEqual(pattern) { return true }
        }
        return false
    }
}

extension RasterImage {
    /// The pixels as 8-bit samples, RGB or RGBA, and the channel count.
    func eightBitRGBForTests() -> (width: Int, height: Int, channels: Int, samples: [UInt8]) {
        let direct = directColor()
        var out: [UInt8] = []
        let channels = direct.colorType.channels
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<channels {
                    let value = direct.sample(x: x, y: y, channel: channel)
                    out.append(UInt8(direct.bitDepth == 16 ? value >> 8 : value))
                }
            }
        }
        return (width, height, channels, out)
    }
}
