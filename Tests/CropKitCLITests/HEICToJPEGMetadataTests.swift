import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A HEIC written as JPEG keeps its cleaned EXIF on every route: a plain
/// crop, resized, straightened, as one of several variants and from a batch
/// line with a width. The resampled routes wrote the colour profile alone
/// (no APP1: date, camera and GPS gone) while the report said the EXIF item
/// was rewritten. Each output is read back, with CropKit's own reader and
/// with exiftool where it is installed, and must hold what the report says.
@Suite(
    .announcesSkips,
    .enabled(
        if: HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles,
        "libheif cannot encode here"))
struct HEICToJPEGMetadataTests {
    /// The EXIF tags exiftool reads in the file at `path` (`-G1 -n`:
    /// "IFD0:Orientation" to its value), or `nil` without exiftool.
    static func exiftool(_ path: String) throws -> [String: Any]? {
        ExifTool.isInstalled ? try ExifTool.tags(path, groups: "-G1") : nil
    }

    /// Whether the JPEG at `path` holds an EXIF APP1 segment before its
    /// first scan (its segments walked here, without exiftool).
    static func holdsEXIF(_ path: String) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[at + 1] == 0xE1, bytes[(at + 4)...].starts(with: Array("Exif\0\0".utf8)) {
                return true
            }
            at += 2 + length
        }
        return false
    }

    /// The demo's 640x480 HEIC (tiles of 256, EXIF with GPS), encoded once
    /// for every test here.
    static let photo = Result { try DemoPhoto.heic(width: 640, height: 480, tile: 256) }

    @Test(arguments: [
        ["--pixels", "10,20,300,200"],
        ["--pixels", "10,20,300,200", "--width", "120"],
        ["--angle", "3", "--inside", "--width", "200"],
        ["--pixels", "10,20,300,200", "--strip", "location", "--fit", "90x90"],
    ])
    func everyRouteKeepsTheEXIFItsReportNames(options: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("photo.heic").path
        try Data(try Self.photo.get()).write(to: URL(fileURLWithPath: input))
        let out = folder.appendingPathComponent("out.jpg").path
        let run = cropkit(["crop", input, "-o", out, "--json"] + options)
        #expect(run.status == 0, "\(options): \(run.err)")
        let report = try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]
        let written = report?["written"] as? [String: Any]
        let entries = written?["metadata"] as? [[String: Any]] ?? []
        let exif = entries.first { ($0["segment"] as? String) == "APP1 EXIF (from Exif item)" }
        #expect(exif?["action"] as? String == "rewritten", "\(options): \(entries)")
        #expect(try Self.holdsEXIF(out), "\(options): the report says rewritten; the file has none")
        guard let tags = try Self.exiftool(out) else { return }
        #expect(tags["IFD0:Orientation"] as? Int == 1, "\(options): \(tags)")
        #expect(tags["ExifIFD:ExifImageWidth"] as? Int == written?["width"] as? Int, "\(options)")
        #expect(tags["ExifIFD:ExifImageHeight"] as? Int == written?["height"] as? Int, "\(options)")
        let location = tags.keys.filter { $0.hasPrefix("GPS:") }
        if options.contains("location") {
            #expect(location.isEmpty, "\(options): \(location)")
        } else {
            #expect(!location.isEmpty, "\(options): the GPS block is kept by default")
        }
    }

    /// Variants of one run and a batch line with a width: the same.
    @Test func variantsAndBatchLinesKeepIt() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("photo.heic").path
        try Data(try Self.photo.get()).write(to: URL(fileURLWithPath: input))
        let outputs = ["a.jpg", "b.jpg"].map { folder.appendingPathComponent($0).path }
        let run = cropkit([
            "crop", input, "-o", outputs[0], "--pixels", "0,0,200,100", "-o", outputs[1],
            "--pixels", "0,0,400,300", "--width", "100",
        ])
        #expect(run.status == 0, "\(run.err)")
        let manifest = folder.appendingPathComponent("m.jsonl")
        try Data(
            #"{"input":"photo.heic","output":"c.jpg","pixels":{"x":0,"y":0,"width":400,"height":300},"width":150}"#
                .utf8
        ).write(to: manifest)
        #expect(cropkit("batch", manifest.path).status == 0)
        for path in outputs + [folder.appendingPathComponent("c.jpg").path] {
            #expect(try Self.holdsEXIF(path), "\(path)")
            if let tags = try Self.exiftool(path) {
                #expect(tags["IFD0:Orientation"] as? Int == 1, "\(path)")
            }
        }
    }
}
