import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// AVIF through the command line: `info`'s structure, crops to AVIF from
/// every format and route (tiles copied from a grid AVIF, encoded from
/// pixels otherwise), `verify` and `replay --export` in AVIF, and the
/// outputs read back by the system's `avifdec` where it is installed. Every
/// output a run writes is also read by the leak check (``expectNoLeaks``).
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(
        if: HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles,
        "needs libheif with an AV1 encoder (Debian: libheif1)"))
struct AVIFCommandTests {
    static let grid = TestData.path("avif/generated/coords_grid2x2_irot270_1024x784_lossless.avif")

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// `avifdec`'s reading of `path`: its size, or "refused"; `nil` without
    /// `avifdec`.
    static func avifdec(_ path: String) throws -> String? {
        let tool = "/usr/bin/avifdec"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--info", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return "refused" }
        // "Valid, derived crop rect: X: 0, Y: 0, W: 700, H: 500" when a
        // clean aperture cuts it, else "Resolution : WxH".
        if let line = text.split(separator: "\n").first(where: { $0.contains("derived crop rect") })
        {
            let words = line.split(separator: " ")
            if let w = words.firstIndex(of: "W:"), let h = words.firstIndex(of: "H:") {
                return
                    "\(words[w + 1].trimmingCharacters(in: .punctuationCharacters))x\(words[h + 1])"
            }
        }
        let line = text.split(separator: "\n").first { $0.contains("Resolution") } ?? ""
        return line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// AV1 images go to libavif with dav1d where it is installed (chosen by
    /// measurement: a 12 MP frame in a third of libheif's time), converted
    /// to RGB only where the crop is; libheif decodes them otherwise. Both
    /// give the same pixels, within one step of the source's bit depth:
    /// each depth, chroma format, alpha, a grid and a rotation, at odd
    /// origins (chroma positions). A limited-range monochrome image is the
    /// exception: libavif expands its range, as Pillow does (checked
    /// against Pillow's decode), and libheif 1.15 does not. A frame coded at
    /// another size than its `ispe` (libavif would scale it) is refused.
    @Test(
        .enabled(
            if: RuntimeLibrary.libavif.isAvailable && KillTests.binary != nil,
            "needs libavif (Debian: libavif15) and the cropkit binary"))
    func libavifDecodesAsLibheifDoes() throws {
        #expect(HEIFCodec.av1ThroughLibavif)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(file: String, rect: String, depth: Int)] = [
            ("link-u/fox.profile0.8bpc.yuv420.avif", "33,17,301,203", 8),
            ("link-u/fox.profile0.8bpc.yuv420.odd-width.odd-height.avif", "1,1,200,150", 8),
            ("link-u/fox.profile0.10bpc.yuv420.avif", "35,19,101,77", 10),
            ("link-u/fox.profile2.12bpc.yuv420.avif", "35,19,101,77", 12),
            ("link-u/fox.profile1.8bpc.yuv444.avif", "35,19,101,77", 8),
            ("link-u/kimono.rotate90.avif", "101,203,99,97", 8),
            (
                "link-u-repaired/plum-blossom-large.profile0.8bpc.yuv420.alpha-limited.ipma-merged.avif",
                "301,201,99,97", 8
            ),
            ("generated/coords_grid2x2_1001x777_lossless.avif", "451,351,101,77", 8),
        ]
        for c in cases {
            var images: [RasterImage] = []
            for decoder in ["libavif", "libheif"] {
                let out = folder.appendingPathComponent("\(decoder).png").path
                let run = try cropkitProcess(
                    ["crop", TestData.path("avif/\(c.file)"), "-o", out, "--pixels", c.rect, "-f"],
                    environment: decoder == "libheif" ? ["CROPKIT_AV1_DECODER": "libheif"] : [:])
                try #require(run.status == 0, "\(c.file) through \(decoder): \(run.err)")
                images.append(try ImageSource.open(path: out).decode().image)
            }
            let (a, b) = (images[0], images[1])
            try #require(a.width == b.width && a.height == b.height && a.colorType == b.colorType)
            let step = a.bitDepth == 16 ? 1 << (16 - c.depth) : 1
            var worst = 0
            for y in 0..<a.height {
                for x in 0..<a.width {
                    for channel in 0..<a.colorType.channels {
                        worst = max(
                            worst,
                            abs(
                                a.sample(x: x, y: y, channel: channel)
                                    - b.sample(x: x, y: y, channel: channel)))
                    }
                }
            }
            #expect(worst <= step + 1, "\(c.file): libavif and libheif differ by \(worst)")
            if c.file.hasPrefix("generated/") { #expect(worst == 0, "\(c.file) is lossless") }
        }
        let mono = TestData.path("avif/link-u/fox.profile0.8bpc.yuv420.monochrome.avif")
        let out = folder.appendingPathComponent("mono.png").path
        let run = try cropkitProcess(["crop", mono, "-o", out, "--pixels", "35,19,101,77", "-f"])
        try #require(run.status == 0, "\(run.err)")
        let ours = try ImageSource.open(path: out).decode().image
        if let pillow = try Pillow.rgb(
            Array(try Data(contentsOf: URL(fileURLWithPath: mono))), rect: (35, 19, 101, 77))
        {
            let same = pillow.samples == ours.samples
            #expect(same, "the monochrome fox, libavif against Pillow")
        }
        let scaled = try cropkitProcess([
            "crop", TestData.path("corrupt/avif/37_ispe_200x100_av1_97x61.avif"), "-o",
            folder.appendingPathComponent("scaled.png").path, "--pixels", "0,0,10,10",
        ])
        #expect(scaled.status == 2)
        #expect(scaled.err.contains("the coded image's size is not the 200x100 its ispe declares"))
    }

    @Test func infoShowsTheAVIFStructure() throws {
        let run = cropkit("info", Self.grid, "--json")
        #expect(run.status == 0, "\(run.err)")
        let info = try Self.json(run.out)
        #expect(info["format"] as? String == "avif")
        #expect(info["orientation"] as? Int == 6)
        #expect(
            (info["transforms"] as? [[String: Any]])?.map { "\($0["box"]!) \($0["value"]!)" }
                == ["irot 270"])
        #expect((info["oriented"] as? [String: Int]) == ["width": 1024, "height": 784])
    }

    @Test func everyRouteWritesAVIF() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = TestData.path("camera/samsung_galaxys_orient6_gps.jpg")
        let png = TestData.path("pngsuite/generated/coords_rgba8_251x97.png")
        let cases:
            [(input: String, name: String, options: [String], size: String, method: String)] =
                [
                    (
                        Self.grid, "tiles.avif", ["--pixels", "0,0,600,500"], "600x500",
                        "lossless-edges-reencoded"
                    ),
                    (
                        Self.grid, "snapped.avif",
                        ["--pixels", "10,10,300,300", "--snap-to-blocks"], "512x392", "lossless"
                    ),
                    (Self.grid, "small.avif", ["--pixels", "101,99,61,41"], "61x41", "reencoded"),
                    (jpeg, "jpeg.avif", ["--pixels", "3,5,301,201"], "301x201", "reencoded"),
                    (
                        png, "circle.avif", ["--pixels", "4,4,60,60", "--circle"], "60x60",
                        "reencoded"
                    ),
                    (
                        jpeg, "turned.avif", ["--pixels", "100,100,200,150", "--angle", "2"],
                        "200x150", "reencoded"
                    ),
                ]
        for c in cases {
            let out = folder.appendingPathComponent(c.name).path
            let run = cropkit(["crop", c.input, "-o", out, "--json"] + c.options)
            try #require(run.status == 0, "\(c.name): \(run.err)")
            let written = try #require(try Self.json(run.out)["written"] as? [String: Any])
            let avif = try #require(written["avif"] as? [String: Any], "\(c.name)")
            #expect(avif["method"] as? String == c.method, "\(c.name)")
            #expect("\(written["width"] ?? "")x\(written["height"] ?? "")" == c.size, "\(c.name)")
            #expect(try ImageSource.open(path: out).format == .avif)
            if let read = try Self.avifdec(out) {
                // The snapped crop is stored as the grid holds it (irot 270).
                let expected =
                    c.name == "snapped.avif"
                    ? "392x512" : c.name == "tiles.avif" ? "500x600" : c.size
                #expect(read == expected, "avifdec read \(c.name) as \(read)")
            }
        }
        // --lossless needs tiles to copy.
        let refused = cropkit(
            "crop", png, "-o", folder.appendingPathComponent("no.avif").path, "--pixels", "0,0,8,8",
            "--lossless")
        #expect(refused.status != 0)
        #expect(
            refused.err.contains("AVIF output is made from an AVIF source only"), "\(refused.err)")
    }

    @Test func verifyAndReplayExportAVIF() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (verify, replay, export) = try verifyAndReplayExport(format: "avif", in: folder)
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        #expect(verify.out.contains("ok   psnr: encoded from pixels:"))
        #expect(replay.status == 0, "\(replay.err)")
        #expect(FileManager.default.fileExists(atPath: export + "/line-1.avif"))
    }

    @Test func sequencesAndHalfPixelClapsAreNamed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A sequence is video: refused without --frame, its primary image
        // with --frame 0, and no later frame.
        let path = TestData.path("avif/generated/coords_anim3_97x61_lossless.avif")
        let output = folder.appendingPathComponent("frame.png").path
        let whole = cropkit("crop", path, "-o", output, "--pixels", "0,0,10,10")
        #expect(whole.status == 64)
        #expect(whole.err.contains("is an AVIF image sequence (avis): video coded between frames"))
        #expect(whole.err.contains("add --frame 0"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let later = cropkit("crop", path, "-o", output, "--pixels", "0,0,10,10", "--frame", "2")
        #expect(later.status == 2)
        #expect(later.err.contains("--frame 2:") && later.err.contains("--frame 0 crops"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let sequence = cropkit(
            "crop", path, "-o", output, "--pixels", "0,0,10,10", "--frame", "0")
        #expect(sequence.status == 0, "\(sequence.err)")
        #expect(sequence.err.contains("an image sequence (avis)"))
        let manifest = folder.appendingPathComponent("jobs.jsonl")
        try Data(
            """
            {"input":"\(path)","output":"\(folder.path)/b0.png","pixels":{"x":0,"y":0,"width":8,"height":8}}
            {"input":"\(path)","output":"\(folder.path)/b1.png","pixels":{"x":0,"y":0,"width":8,"height":8},"frame":0}

            """.utf8
        ).write(to: manifest)
        let batch = cropkit("batch", manifest.path)
        #expect(batch.status != 0)
        #expect(batch.out.contains("an AVIF image sequence (avis): video coded between frames"))
        #expect(batch.out.contains("\"line\":2,\"status\":\"written\""), "\(batch.out)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/b0.png"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/b1.png"))
        let clap = cropkit(
            "crop", TestData.path("avif/link-u/kimono.crop.avif"), "-o",
            folder.appendingPathComponent("kimono.png").path, "--pixels", "0,0,10,10")
        #expect(clap.status == 2)
        #expect(clap.err.contains("'clap' does not cut whole pixels"))
    }
}
