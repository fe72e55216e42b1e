import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// `cropkit leaks` on every output of every path: sources that carry every
/// kind of leak (EXIF thumbnails, maker-note previews, MPF gain maps,
/// extended XMP, trailing bytes; HEIF thumbnails, auxiliary images and a
/// clean aperture hiding real pixels), each cropped to every output format
/// it can be written as, by each route the writer takes: a lossless copy,
/// an off-grid crop (edge blocks or tiles re-encoded), a re-encode, a turn,
/// a resize, stripped metadata, a cropped gain map, variants in one run and
/// a batch line. Each run must succeed, and ``cropkit(_:input:)`` reads every
/// file it wrote back with the leak check, which must find nothing.
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct LeakMatrixTests {
    /// The sources, as paths in the test data (or made here: "clapped"),
    /// and whether they are HEIF.
    static let sources = [
        "camera/iphone14promax_p3_hdrgainmap.jpg", "camera/casio_exs1_makernote_preview.jpg",
        "camera/canon_s300_slack_tail.jpg", "camera/android_depthmap_xmp.jpg",
        "camera/hasselblad_l1d_drone_gps.jpg", "heif/libvips/apple-heic-gainmap.heic",
        "heif/imagesize/heic.heic", "heif/generated/coords_1001x777_clap_lossless.heic", "clapped",
        "leaky.webp", "avif/generated/coords_grid2x2_1024x784_lossless.avif",
    ]

    /// The option sets: each is one route through the writer. `nil` output
    /// extensions are every one the source can be written as.
    static let routes: [(name: String, options: [String], extensions: [String]?)] = [
        ("off the grid", ["--pixels", "13,9,41,37"], nil),
        ("on the grid", ["--pixels", "13,9,41,37", "--snap-to-blocks"], ["jpg", "heic"]),
        ("re-encoded", ["--pixels", "13,9,41,37", "--quality", "80"], ["jpg"]),
        // A turned rect of the photo (the whole photo turned in a debug
        // build took most of this suite's time, and leaks the same way).
        // WebP and AVIF, written by the same metadata model, on the routes
        // that differ for them (each AV1 encode costs aom's set-up).
        ("turned", ["--pixels", "CENTRE", "--angle", "3"], ["png", "jpg", "avif"]),
        ("resized", ["--pixels", "0,0,48,40", "--width", "20"], ["png", "jpg", "webp"]),
        (
            "no location", ["--pixels", "13,9,41,37", "--strip", "location"],
            ["png", "jpg", "heic"]
        ),
        (
            "nothing but colour", ["--pixels", "13,9,41,37", "--strip", "all"],
            ["png", "jpg", "heic"]
        ),
        ("gain map cropped", ["--pixels", "13,9,41,37", "--gain-map", "crop"], ["jpg"]),
        ("a circle", ["--pixels", "4,4,30,30", "--circle"], ["png"]),
    ]

    /// The source at `name`, in `folder`: a copy of the test data's file,
    /// or (for "clapped") a crop of a real iPhone photo made the leaky way,
    /// its tiles copied and only its `clap` cutting, so that the aperture
    /// hides real pixels, or (for "leaky.webp") a WebP carrying a camera's
    /// EXIF with its thumbnail and bytes after its RIFF form.
    static func source(_ name: String, in folder: URL) throws -> String {
        if name == "leaky.webp" { return try leakyWebP(in: folder) }
        guard name == "clapped" else { return TestData.path(name) }
        let photo = try ImageSource.open(path: TestData.path("heif/pillow-heif/arrow.heic"))
        var leaky = HEIFEncoder()
        leaky.fixesEdges = false
        let sink = MemorySink()
        _ = try CropJob(
            region: .pixels(PixelRect(x: 700, y: 900, width: 640, height: 480)),
            format: .heif(leaky)
        ).plan(for: photo).export(to: sink)
        let path = folder.appendingPathComponent("clapped.heic").path
        try Data(sink.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A lossless WebP (the 300x200 coordinates file's bitstream) with the
    /// EXIF of a camera JPEG, thumbnail and GPS included, and 64 bytes
    /// after its end.
    static func leakyWebP(in folder: URL) throws -> String {
        let webp = try ImageSource.open(
            path: TestData.path("webp/generated/coords_300x200_lossless.webp"))
        let camera = try ImageSource.open(
            path: TestData.path("camera/samsung_galaxys_orient6_gps.jpg"))
        let info = try #require(webp.header as? WebPFileInfo)
        let exif = try #require(try camera.metadata().exif.first)
        let bitstream = try webp.input.read(
            at: info.bitstream.offset, count: info.bitstream.size, format: .webp)
        var bytes = WebPContainer.riff([
            WebPContainer.vp8x(flags: WebPContainer.exifFlag, width: 300, height: 200),
            WebPContainer.chunk("VP8L", bitstream), WebPContainer.chunk("EXIF", exif),
        ])
        bytes += [UInt8](repeating: 0x5A, count: 64)
        let path = folder.appendingPathComponent("leaky.webp").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static var heifWorks: Bool {
        HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles
    }

    @Test(arguments: sources)
    func everyRouteWritesNothingBeyondTheRect(source name: String) throws {
        let isHEIF = name.hasSuffix(".heic") || name == "clapped"
        // A source this machine cannot read is a skip the run counts.
        guard
            TestGate.holds(
                !isHEIF || Self.heifWorks, else: "without libheif that encodes HEVC tiles")
        else { return }
        let webpWorks = RuntimeLibrary.libwebp.isAvailable
        guard
            TestGate.holds(
                !name.hasSuffix(".webp") || webpWorks, else: "without libwebp (Debian: libwebp7)")
        else { return }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.source(name, in: folder)
        #expect(
            cropkit("leaks", input).status != 0 || name.contains("coords"),
            "\(name): a source for this test should carry something to leak")
        // A 60x50 rect at the centre of the photo as seen ("CENTRE").
        let opened = try ImageSource.open(path: input)
        let seen = opened.orientation.orientedSize(opened.storedSize)
        let centre = (x: seen.width / 2 - 30, y: seen.height / 2 - 25)
        let centreText = "\(centre.x),\(centre.y),60,50"
        var written = 0
        for route in Self.routes {
            let extensions = (route.extensions ?? ["png", "jpg", "heic", "webp", "avif"]).filter {
                ($0 != "heic" || isHEIF) && ($0 != "webp" || webpWorks)
                    && ($0 != "avif" || Self.heifWorks)
            }
            for ext in extensions {
                let out = folder.appendingPathComponent("out.\(ext)").path
                let options = route.options.map { $0 == "CENTRE" ? centreText : $0 }
                let run = cropkit(["crop", input, "-o", out, "--force", "--quiet"] + options)
                // A HEIC's gain map is an auxiliary image a JPEG cannot
                // carry: --gain-map crop is refused for it (IgnoredFlagTests).
                let refusedGainMap =
                    route.name == "gain map cropped" && !(opened.header is JPEGFileInfo)
                    && run.status == 2 && run.err.contains("leave out --gain-map crop")
                if refusedGainMap { continue }
                #expect(run.status == 0, "\(name), \(route.name), .\(ext): \(run.err)")
                written += run.status == 0 ? 1 : 0
            }
        }
        // Variants in one run: a lossless copy, a re-encode and a resize.
        let variants = cropkit([
            "crop", input, "--force", "--quiet", "-o", folder.appendingPathComponent("v1.jpg").path,
            "--pixels", "13,9,41,37", "-o", folder.appendingPathComponent("v2.png").path,
            "--pixels", "0,0,48,40", "--width", "20",
        ])
        #expect(variants.status == 0, "\(name), variants: \(variants.err)")
        // A batch line with variants, one of them turned (a HEIC's whole
        // turned photo does not fit the budget beside two others: a circle).
        let third =
            isHEIF
            ? #"{"output":"b3.png","pixels":{"x":1,"y":2,"width":30,"height":20},"circle":true}"#
            : #"{"output":"b3.jpg","pixels":{"x":\#(centre.x),"y":\#(centre.y),"width":60,"height":50},"angle":2}"#
        let manifest = folder.appendingPathComponent("m.jsonl")
        let line = """
            {"input":"\(input)","variants":[\
            {"output":"b1.\(isHEIF ? "heic" : "jpg")","pixels":{"x":13,"y":9,"width":41,"height":37}},\
            {"output":"b2.png","pixels":{"x":0,"y":0,"width":48,"height":40},"width":20},\
            \(third)]}
            """
        try Data(line.utf8).write(to: manifest)
        let batch = cropkit("batch", manifest.path, "--force")
        #expect(batch.status == 0, "\(name), batch: \(batch.out) \(batch.err)")
        #expect(imagesWritten(by: ["batch", manifest.path], batch).count == 3)
        #expect(written >= 9, "\(name): \(written) routes written")
    }
}
