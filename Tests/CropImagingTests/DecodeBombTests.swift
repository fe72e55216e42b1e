import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// Round four's resource gauntlet for WebP and AVIF: decode bombs (a WebP
/// of 16383x16383, WebP's largest, lossless and lossy; an AVIF grid of
/// 65536x65536) cropped by the real binary. `--max-pixels` refuses them
/// first; raised, `--max-memory` refuses what the crop would hold, named,
/// before a decoder allocates; raised too, the decoder runs and fails on
/// the few bytes there are, stopping at the first row the crop needs.
/// Each refusal is proven by what it did (the check that fired, the rows
/// decoded), never by a clock; the peak resident memory stays under 64 MB
/// (the program and its libraries) or, once the budget allows the decode,
/// under the need the budget was refused at.
@Suite(
    .announcesSkips,
    .enabled(if: CropKitBinary.path != nil, "no cropkit binary beside the tests"),
    .enabled(
        if: ProcessInfo.processInfo.environment["CROPKIT_SANITIZER"] == nil,
        "peaks are not measured under a sanitizer"))
struct DecodeBombTests {
    static func le32(_ value: Int) -> [UInt8] {
        [
            UInt8(value & 255), UInt8(value >> 8 & 255), UInt8(value >> 16 & 255),
            UInt8(value >> 24 & 255),
        ]
    }

    static func riff(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (type, payload) in chunks {
            body += Array(type.utf8) + le32(payload.count) + payload
            if payload.count % 2 == 1 { body.append(0) }
        }
        return Array("RIFF".utf8) + le32(body.count + 4) + Array("WEBP".utf8) + body
    }

    /// A VP8L bitstream header of `side`x`side` and some junk.
    static func vp8l(_ side: Int) -> (String, [UInt8]) {
        let value = (side - 1) | (side - 1) << 14
        return ("VP8L", [0x2F] + le32(value) + [UInt8](repeating: 0x5A, count: 59))
    }

    /// A VP8 key frame header of `side`x`side` and some junk.
    static func vp8(_ side: Int) -> (String, [UInt8]) {
        let size = 100
        let tag = [UInt8(size << 5 & 0xE0 | 0x10), UInt8(size >> 3 & 255), UInt8(size >> 11 & 255)]
        return (
            "VP8 ",
            tag + [
                0x9D, 0x01, 0x2A, UInt8(side & 255), UInt8(side >> 8), UInt8(side & 255),
                UInt8(side >> 8),
            ]
                + [UInt8](repeating: 0x33, count: 90)
        )
    }

    /// The bombs: a name and a file.
    static func bombs() throws -> [(name: String, bytes: [UInt8])] {
        let side = 16383
        let canvas: [UInt8] =
            [0, 0, 0, 0] + Array(le32(side - 1).prefix(3)) + Array(le32(side - 1).prefix(3))
        return [
            ("WebP VP8L 16383x16383", riff([vp8l(side)])),
            ("WebP VP8 16383x16383", riff([vp8(side)])),
            ("WebP VP8X + VP8L 16383x16383", riff([("VP8X", canvas), vp8l(side)])),
            ("AVIF grid 65536x65536", try avifGrid()),
        ]
    }

    /// A 4x4 grid of 65536x65536 whose 16 tiles each claim 16384x16384
    /// (`ispe`) and code the corpus's 97x61 picture.
    static func avifGrid() throws -> [UInt8] {
        let source = try ImageSource.open(
            path: TestData.path("avif/generated/coords_97x61_lossless.avif"))
        let info = try #require((source.header as? AVIFFileInfo)?.heif)
        let tile = info.layout.tiles[0]
        var writer = HEIFFileWriter()
        writer.codec = .av1
        var tiles: [Int] = []
        for _ in 0..<16 {
            let item = writer.addItem(
                type: "av01", hidden: true,
                properties: [
                    (tile.configuration, true),
                    (HEIFFileWriter.ispe(width: 16384, height: 16384), false),
                ] + tile.colourBoxes.map { ($0, false) })
            writer.setData(item, .extents(tile.extents))
            tiles.append(item)
        }
        let grid = writer.addGrid(of: tiles, rows: 4, columns: 4, width: 65536, height: 65536)
        writer.primary = grid
        let sink = MemorySink()
        _ = try writer.write(to: sink, input: source.input)
        return sink.bytes
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func bombsAreRefusedBeforeTheyAllocate() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var refusals = 0
        for bomb in try Self.bombs() {
            let input = folder.appendingPathComponent("bomb").path
            try Data(bomb.bytes).write(to: URL(fileURLWithPath: input))
            let output = folder.appendingPathComponent("out.png").path
            let crop = ["crop", input, "-o", output, "--pixels", "0,0,8,8"]
            // 1. The pixel limit, from the header.
            let pixels = try #require(try CropKitBinary.watch(crop))
            #expect(
                pixels.status == 2 && pixels.err.contains("--max-pixels"),
                "\(bomb.name): \(pixels.err)")
            // 2. Raised: the memory budget, from the plan.
            let raised = crop + ["--max-pixels", "5000000000"]
            let memory = try #require(try CropKitBinary.watch(raised))
            let need = CropKitBinary.statedBytes(memory.err)
            // 3. Raised too: the decoder runs on the few bytes there are.
            let decoded = try #require(try CropKitBinary.watch(raised + ["--max-memory", "8G"]))
            // What each run did, not how long the machine took (a busy one
            // took 2.35 s once): the pixel limit fired on the header, before
            // any decoder; the budget before any allocation of the need;
            // and the decoder, let run, stopped at the first row the crop
            // needs ("after 0 of 8 rows") or refused its first tile by its
            // header. The 2 s bound is scripts/gauntlet's, on a quiet
            // machine.
            #expect(
                decoded.err.contains("after 0 of") || decoded.err.contains("its ispe declares"),
                "\(bomb.name): the decoder did more than fail on its first row: \(decoded.err)")
            #expect(
                memory.err.contains("--max-memory") || memory.err.contains("after 0 of"),
                "\(bomb.name): \(memory.err)")
            for (step, run) in [("pixels", pixels), ("memory", memory), ("decoder", decoded)] {
                #expect(run.status == 2, "\(bomb.name), \(step): \(run.status) \(run.err)")
                #expect(!FileManager.default.fileExists(atPath: output), "\(bomb.name), \(step)")
                if run.status == 2 { refusals += 1 }
            }
            #expect(
                pixels.peak < 64 << 20, "\(bomb.name): \(pixels.peak >> 20) MB refusing by pixels")
            if let need {
                // Refused by the budget: nothing of the need allocated.
                #expect(memory.err.contains("--max-memory"), "\(bomb.name): \(memory.err)")
                #expect(
                    memory.peak < 64 << 20,
                    "\(bomb.name): \(memory.peak >> 20) MB refusing by memory")
                #expect(
                    decoded.peak < need + (64 << 20),
                    "\(bomb.name): \(decoded.peak >> 20) MB, need \(need >> 20) MB")
            } else {
                // Within the budget: the decoder fails on the bytes within it.
                #expect(memory.peak < 256 << 20, "\(bomb.name): \(memory.peak >> 20) MB")
            }
            print(
                "decode bomb \(bomb.name): pixels \(pixels.err.prefix(90)) | memory \(memory.err.prefix(160)) | decoder \(decoded.err.prefix(120)) | peaks \(pixels.peak >> 20)/\(memory.peak >> 20)/\(decoded.peak >> 20) MB"
            )
        }
        #expect(refusals == 12)
    }
}
