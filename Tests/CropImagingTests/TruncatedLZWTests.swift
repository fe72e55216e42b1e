import CropGeometry
import CropImaging
import Testing

/// A GIF frame whose LZW data ends before its last pixel (the sub-blocks
/// end properly; the codes stop early): the decision the article
/// "Animated images" writes down. Into GIF, a frame inside the rect is
/// copied as it is and a cut frame is coded again when its data reaches
/// the crop's last row; every path that composites the whole frame
/// refuses it, naming how many pixels the data holds.
@Suite struct TruncatedLZWTests {
    /// LZW (minimum code size 8) of `count` zero indices, one code a pixel,
    /// a clear code every 200 so the codes stay 9 bits.
    static func zeros(_ count: Int) -> [UInt8] {
        var codes: [Int] = []
        for index in 0..<count {
            if index % 200 == 0 { codes.append(256) }
            codes.append(0)
        }
        codes.append(257)
        var packed: [UInt8] = []
        var bits = 0
        var held = 0
        for code in codes {
            bits |= code << held
            held += 9
            while held >= 8 {
                packed.append(UInt8(bits & 0xFF))
                bits >>= 8
                held -= 8
            }
        }
        if held > 0 { packed.append(UInt8(bits & 0xFF)) }
        var blocks: [UInt8] = [8]
        var start = 0
        while start < packed.count {
            let piece = packed[start..<min(start + 255, packed.count)]
            blocks.append(UInt8(piece.count))
            blocks += piece
            start += 255
        }
        return blocks + [0]
    }

    /// A 64x32 GIF of two whole-screen frames, the second's data holding
    /// its first 10 rows only.
    static let file: [UInt8] = {
        var gif = Array("GIF89a".utf8) + [64, 0, 32, 0, 0xF0, 0, 0] + [0, 0, 0, 255, 255, 255]
        gif += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for rows in [32, 10] {
            gif += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
            gif += [0x2C, 0, 0, 0, 0, 64, 0, 32, 0, 0]
            gif += zeros(64 * rows)
        }
        return gif + [0x3B]
    }()

    static func animation() throws -> AnimatedImage {
        let opened = try AnimatedImage(ImageInput(bytes: file, name: "short.gif"))
        return try #require(opened)
    }

    @Test func aCropAboveTheEndIsCutIntoGIF() throws {
        let animation = try Self.animation()
        let sink = MemorySink()
        let report = try animation.crop(
            PixelRect(x: 3, y: 2, width: 20, height: 5), as: .gif, to: sink)
        #expect(report.frames == 2 && report.losslessAgain == 2)
        let output = try #require(try AnimatedImage(ImageInput(bytes: sink.bytes)))
        var frames = output.displayedFrames.makeIterator()
        var count = 0
        while let canvas = try frames.nextFrame() {
            count += 1
            #expect(canvas.width == 20 && canvas.height == 5)
            // Index 0 of the global table is black, opaque.
            #expect(
                canvas.samples.enumerated().allSatisfy {
                    $0.offset % 4 == 3 ? $0.element == 255 : $0.element == 0
                })
        }
        #expect(count == 2)
    }

    @Test func aCropReachingPastTheEndIsRefused() throws {
        let animation = try Self.animation()
        #expect {
            try animation.crop(
                PixelRect(x: 0, y: 0, width: 20, height: 20), as: .gif, to: MemorySink())
        } throws: { error in
            "\(error)".contains("640 of its 1280 pixels")
        }
    }

    @Test func aConversionNeedsTheWholeFrame() throws {
        let animation = try Self.animation()
        #expect {
            try animation.crop(
                PixelRect(x: 3, y: 2, width: 20, height: 5), as: .png, to: MemorySink())
        } throws: { error in
            "\(error)".contains("640 of its 2048 pixels")
        }
    }

    @Test func theWholeCanvasIntoGIFCopiesTheFrames() throws {
        let animation = try Self.animation()
        let sink = MemorySink()
        let report = try animation.crop(
            PixelRect(x: 0, y: 0, width: 64, height: 32), as: .gif, to: sink)
        #expect(report.copied == 2)
        // The second frame's data is the source's, byte for byte.
        let data = Self.zeros(64 * 10)
        #expect(sink.bytes.count >= data.count)
        #expect(
            (0...(sink.bytes.count - data.count)).contains {
                Array(sink.bytes[$0..<$0 + data.count]) == data
            })
    }
}
