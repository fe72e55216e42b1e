import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A lossless source stays lossless in WebP: every lossless "coordinates"
/// file (PNG, lossless WebP, AVIF and HEIC, a 16-bit PNG), cropped off any
/// grid to `.webp`, is written as VP8L with the reason naming the source's
/// coding, and Pillow reads back exactly the pixels of the same rect cropped
/// to `.png`. Lossy sources stay VP8.
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: RuntimeLibrary.libwebp.isAvailable, "needs libwebp.so.7 (Debian: libwebp7)"),
    .enabled(
        if: TestGate.holds(Pillow.python != nil, else: "without Pillow"),
        "needs Pillow in .build/venv (scripts/python-venv), the independent decoder"))
struct LosslessToWebPTests {
    /// Each lossless source, the coding its report must name, and a rect
    /// off every block and tile grid.
    static let sources: [(file: String, coding: String, rect: String)] = [
        ("avif/generated/coords_1001x777_lossless.avif", "AV1 at quantizer 0", "11,13,300,200"),
        (
            "avif/generated/coords_grid2x2_1001x777_lossless.avif", "AV1 at quantizer 0",
            "500,380,301,203"
        ),
        ("avif/generated/coords_rgba_300x200_lossless.avif", "AV1 at quantizer 0", "3,5,97,61"),
        (
            "avif/generated/coords_irot90_imir1_97x61_lossless.avif", "AV1 at quantizer 0",
            "1,2,50,31"
        ),
        (
            "avif/generated/coords_clap_97x61_in_112x80_lossless.avif", "AV1 at quantizer 0",
            "7,9,61,33"
        ),
        (
            "heif/generated/coords_1001x777_grid512_lossless.heic", "HEVC with transquant bypass",
            "11,13,600,500"
        ),
        (
            "heif/generated/coords_orient6_700x1100_grid512_lossless.heic",
            "HEVC with transquant bypass", "5,7,333,444"
        ),
        (
            "heif/generated/coords_alpha_128x64_lossless.heic", "HEVC with transquant bypass",
            "3,3,65,33"
        ),
        ("webp/generated/coords_1001x777_lossless.webp", "VP8L", "11,13,300,200"),
        ("webp/generated/coords_rgba_300x200_lossless.webp", "VP8L", "3,5,97,61"),
        ("webp/generated/coords_exif6_97x61_lossless.webp", "VP8L", "1,2,50,31"),
    ]

    /// The rect of `file` cropped to WebP and to PNG: the WebP's report
    /// line, and both outputs as Pillow reads them (RGBA).
    static func both(_ file: String, rect: String, in folder: URL) throws -> (
        line: String, webp: (width: Int, height: Int, samples: [UInt8])?,
        png: (width: Int, height: Int, samples: [UInt8])?
    ) {
        let webp = folder.appendingPathComponent("crop.webp").path
        let png = folder.appendingPathComponent("crop.png").path
        let run = cropkit("crop", TestData.path(file), "--pixels", rect, "-o", webp, "-o", png)
        #expect(run.status == 0, "\(file): \(run.err)")
        let line = run.out.split(separator: "\n").first { $0.contains("crop.webp") } ?? ""
        let images = try Pillow.decodeAll([(webp, "RGBA", false), (png, "RGBA", false)])
        return (String(line), images?[0], images?[1])
    }

    @Test(arguments: sources)
    func aLosslessSourceIsWrittenAsVP8LPixelExact(
        source: (file: String, coding: String, rect: String)
    ) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (line, webpRead, pngRead) = try Self.both(source.file, rect: source.rect, in: folder)
        #expect(
            line.contains("lossless VP8L")
                && line.contains("the source is lossless (\(source.coding))"),
            "\(source.file): \(line)")
        let (webp, png) = (try #require(webpRead), try #require(pngRead))
        #expect(webp.width == png.width && webp.height == png.height)
        let differing = zip(webp.samples, png.samples).filter { $0 != $1 }.count
        #expect(differing == 0, "\(source.file): \(differing) samples differ from the PNG crop")
    }

    /// A PNG (8-bit, made by `cropkit fixture`) and a 16-bit PNG: VP8L, the
    /// 16-bit samples rounded to 8 bits and nothing else changed.
    @Test func pngSourcesAreWrittenAsVP8L() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = folder.appendingPathComponent("fixture.png").path
        #expect(cropkit("fixture", "333x222", "-o", fixture).status == 0)
        let out = folder.appendingPathComponent("a.webp").path
        let run = cropkit("crop", fixture, "--pixels", "7,9,101,55", "-o", out)
        #expect(run.out.contains("lossless VP8L") && run.out.contains("(PNG)"), "\(run.out)")
        let wide = TestData.path("pngsuite/basn2c16.png")
        let run16 = cropkit("crop", wide, "--pixels", "3,5,17,11", "-o", out, "--force")
        #expect(run16.out.contains("lossless VP8L"), "\(run16.out)")
        #expect(
            run16.out.contains("16-bit samples written as 8 bits") || run16.err.contains("16-bit"))
        let source = try ImageSource.open(path: wide).decode().image
        let read = try #require(
            try Pillow.rgb(Array(try Data(contentsOf: URL(fileURLWithPath: out)))))
        #expect(read.width == 17 && read.height == 11)
        var differing = 0
        for y in 0..<11 {
            for x in 0..<17 {
                for channel in 0..<3 {
                    let expected =
                        (source.sample(x: 3 + x, y: 5 + y, channel: channel) * 255 + 32767) / 65535
                    if Int(read.samples[(y * 17 + x) * 3 + channel]) != expected { differing += 1 }
                }
            }
        }
        #expect(differing == 0)
    }

    /// Lossy sources (a real HEIC, a lossy AVIF, a JPEG) stay lossy.
    @Test(arguments: [
        "heif/pillow-heif/pug.heic", "avif/generated/coords_lossy_420_300x200.avif",
        "avif/link-u/fox.profile1.8bpc.yuv444.avif", "exif/generated/testorig_orientation6.jpg",
    ])
    func aLossySourceStaysLossy(file: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = cropkit(
            "crop", TestData.path(file), "--pixels", "1,1,40,30", "-o",
            folder.appendingPathComponent("a.webp").path)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("lossy VP8 at quality 90"), "\(file): \(run.out)")
    }
}
