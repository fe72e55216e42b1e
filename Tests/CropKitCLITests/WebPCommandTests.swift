import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// WebP through the command line: `info`'s structure, crops to and from
/// WebP on every route (plain, resized, turned, circled, variants, batch),
/// `verify` and `replay --export` in WebP, `leaks`, and the outputs read
/// back by the system's `dwebp` where it is installed. Every output a run
/// writes is also read by the leak check (``expectNoLeaks``).
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: RuntimeLibrary.libwebp.isAvailable, "needs libwebp.so.7 (Debian: libwebp7)"))
struct WebPCommandTests {
    static let photo = TestData.path("webp/generated/photo_pug_4032x3024_q80.webp")
    static let exif6 = TestData.path("webp/generated/coords_exif6_icc_xmp_97x61_lossless.webp")

    /// The JSON object `text` holds.
    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    /// `dwebp`'s reading of `path` (its size), or `nil` without `dwebp`.
    static func dwebp(_ path: String) throws -> String? {
        let tool = "/usr/bin/dwebp"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [path, "-quiet", "-ppm", "-o", path + ".ppm"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return "refused" }
        let ppm = try Data(contentsOf: URL(fileURLWithPath: path + ".ppm")).prefix(32)
        let words = String(decoding: ppm, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        return words.count >= 3 ? "\(words[1])x\(words[2])" : "unreadable"
    }

    @Test func infoShowsTheWebPStructure() throws {
        let run = cropkit("info", Self.exif6, "--json")
        #expect(run.status == 0, "\(run.err)")
        let info = try Self.json(run.out)
        #expect(info["format"] as? String == "webp")
        #expect(info["orientation"] as? Int == 6)
        #expect(info["coding"] as? String == "VP8L")
        #expect(info["chunks"] as? [String] == ["VP8X", "ICCP", "VP8L", "EXIF", "XMP"])
        #expect((info["oriented"] as? [String: Int]) == ["width": 97, "height": 61])
        let photo = try Self.json(cropkit("info", Self.photo, "--json").out)
        #expect(photo["estimatedQuality"] as? Int == 78)
    }

    @Test func everyRouteWritesWebP() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = TestData.path("camera/samsung_galaxys_orient6_gps.jpg")
        let cases:
            [(input: String, name: String, options: [String], size: String, coding: String)] = [
                (Self.photo, "plain.webp", ["--pixels", "1009,759,400,300"], "400x300", "VP8"),
                (
                    Self.photo, "resized.webp", ["--pixels", "1000,700,800,600", "--width", "333"],
                    "333x250", "VP8"
                ),
                (
                    Self.exif6, "turned.webp", ["--pixels", "10,10,50,40", "--angle", "3"], "50x40",
                    "VP8L"
                ),
                (
                    Self.exif6, "circle.webp", ["--pixels", "20,5,40,40", "--circle"], "40x40",
                    "VP8L"
                ),
                (jpeg, "fromjpeg.webp", ["--pixels", "3,5,301,201"], "301x201", "VP8"),
            ]
        for c in cases {
            let out = folder.appendingPathComponent(c.name).path
            let run = cropkit(["crop", c.input, "-o", out, "--json"] + c.options)
            try #require(run.status == 0, "\(c.name): \(run.err)")
            let report = try Self.json(run.out)
            let written = try #require(report["written"] as? [String: Any])
            let webp = try #require(written["webp"] as? [String: Any])
            #expect(webp["coding"] as? String == c.coding, "\(c.name)")
            #expect("\(written["width"] ?? "")x\(written["height"] ?? "")" == c.size, "\(c.name)")
            let source = try ImageSource.open(path: out)
            #expect(source.orientation == .up, "\(c.name)")
            #expect("\(source.storedSize.width)x\(source.storedSize.height)" == c.size)
            if let read = try Self.dwebp(out) {
                #expect(read == c.size, "dwebp read \(c.name) as \(read)")
            }
            if c.name == "circle.webp" { #expect(webp["alpha"] as? Bool == true) }
        }
        // Variants of one decode, and a batch line.
        let a = folder.appendingPathComponent("a.webp").path
        let b = folder.appendingPathComponent("b.png").path
        let variants = cropkit(
            "crop", Self.photo, "-o", a, "--pixels", "0,0,300,300", "-o", b, "--pixels",
            "100,100,64,64", "--width", "32")
        #expect(variants.status == 0, "\(variants.err)")
        let manifest = folder.appendingPathComponent("m.jsonl")
        try Data(
            #"{"input":"\#(Self.exif6)","output":"\#(folder.path)/line.webp","pixels":{"x":1,"y":2,"width":30,"height":20}}"#
                .utf8
        ).write(to: manifest)
        let batch = cropkit("batch", manifest.path)
        #expect(batch.status == 0, "\(batch.err)")
        #expect(
            try ImageSource.open(path: folder.appendingPathComponent("line.webp").path).storedSize
                == PixelSize(width: 30, height: 20))
    }

    @Test func verifyAndReplayExportWebP() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (verify, replay, export) = try verifyAndReplayExport(format: "webp", in: folder)
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        #expect(verify.out.contains("ok   lossless: VP8L: every sample equals the source's"))
        #expect(replay.status == 0, "\(replay.err)")
        #expect(replay.out.contains("\"name\":\"lossless\",\"passed\":true"))
        #expect(FileManager.default.fileExists(atPath: export + "/line-1.webp"))
    }

    @Test func leaksFindsWhatAWebPCarriesBeyondItsImage() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Bytes after the RIFF form, as a truncating writer leaves them.
        let tail = folder.appendingPathComponent("tail.webp")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.exif6))
        bytes.append(contentsOf: [UInt8](repeating: 0xAB, count: 100))
        try bytes.write(to: tail)
        let run = cropkit("leaks", tail.path)
        #expect(run.status == 1)
        #expect(run.out.contains("100 bytes after the end of the image"), "\(run.out)")
        // A crop of it is clean, its bytes after the end not carried.
        let out = folder.appendingPathComponent("clean.webp").path
        #expect(cropkit("crop", tail.path, "-o", out, "--pixels", "0,0,20,20").status == 0)
        #expect(cropkit("leaks", out).status == 0)
        // An animated WebP is cropped frame by frame (issue 53; it was
        // refused), into APNG here.
        let animated = cropkit(
            "crop", TestData.path("webp/generated/coords_anim3_97x61_lossless.webp"), "-o",
            folder.appendingPathComponent("anim.png").path, "--pixels", "0,0,10,10")
        #expect(animated.status == 0, "\(animated.err)")
        #expect(animated.out.contains("APNG animation, 3 frames"), "\(animated.out)")
    }
}
