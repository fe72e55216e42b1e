import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Every output of every path, read back by exiftool (an independent
/// reader), holds exactly what its report says: EXIF, the colour profile,
/// XMP and MPF where the report keeps or rewrites them and nowhere else,
/// the location only where the report says it is kept, never a thumbnail,
/// never a maker note the report removed, EXIF dimensions that are the
/// file's, and a size as seen that is the report's.
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
struct MetadataTruthTests {
    /// A source and what it carries.
    struct Source: Sendable, CustomStringConvertible {
        var name: String
        var path: String
        var isHEIF: Bool
        var isWebP = false
        var description: String { name }
        /// The file: in the corpus, or (an absolute path) made by the test.
        var resolved: String { path.hasPrefix("/") ? path : TestData.path(path) }
    }

    /// An AVIF whose EXIF item holds GPS: the corpus's EXIF 6 AVIF with a
    /// location written by exiftool into a folder of its own, once a run.
    static let gpsAVIF: String = {
        let source = TestData.path("avif/generated/coords_exif6_no_irot_97x61_lossless.avif")
        guard let tool = ExifTool.path, let folder = try? TestData.temporaryFolder() else {
            return source
        }
        let made = folder.appendingPathComponent("avif-gps.avif").path
        try? FileManager.default.copyItem(atPath: source, toPath: made)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [
            "-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
            "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", "-GPSAltitude=35", made,
        ]
        try? process.run()
        process.waitUntilExit()
        return made
    }()

    static let sources = [
        // EXIF with GPS, a thumbnail and orientation 6.
        Source(name: "jpeg-gps", path: "camera/samsung_galaxys_orient6_gps.jpg", isHEIF: false),
        // A Display P3 profile, XMP and an MPF gain map.
        Source(
            name: "jpeg-gainmap", path: "camera/iphone14promax_p3_hdrgainmap.jpg", isHEIF: false),
        // An iPhone HEIC with GPS, a thumbnail and a gain map.
        Source(name: "heic-gps", path: "heif/libvips/apple-heic-gainmap.heic", isHEIF: true),
        // A HEIC with EXIF and a profile, without location.
        Source(name: "heic", path: "heif/pillow-heif/arrow.heic", isHEIF: true),
        // A PNG with no metadata at all.
        Source(name: "png", path: "pngsuite/generated/coords_rgba8_251x97.png", isHEIF: false),
        // A lossy WebP with EXIF (GPS) and a Display P3 profile.
        Source(
            name: "webp-gps", path: "webp/generated/photo_pug_4032x3024_q80.webp", isHEIF: false,
            isWebP: true),
        // A lossless WebP with EXIF orientation 6, a profile and XMP.
        Source(
            name: "webp-exif6", path: "webp/generated/coords_exif6_icc_xmp_97x61_lossless.webp",
            isHEIF: false, isWebP: true),
        // An AVIF with EXIF (orientation 6, not applied: the container's
        // transforms are), small: a 12 MP one decodes whole for each crop.
        Source(
            name: "avif-exif", path: "avif/generated/coords_exif6_no_irot_97x61_lossless.avif",
            isHEIF: false),
        // An AVIF whose EXIF item holds GPS (written by exiftool).
        Source(name: "avif-gps", path: gpsAVIF, isHEIF: false),
    ].filter { !$0.isWebP || RuntimeLibrary.libwebp.isAvailable }

    /// WebP is written from every source where libwebp is installed, AVIF
    /// where libheif encodes AV1.
    static let webpOut =
        (RuntimeLibrary.libwebp.isAvailable ? ["webp"] : [])
        + (HEIFEncoder.canEncodeTiles ? ["avif"] : [])

    /// The routes through the pipeline, by their options.
    static let routes: [(name: String, options: [String])] = [
        ("off-grid", ["--pixels", "3,5,41,37"]),
        ("on-grid", ["--pixels", "16,16,32,32"]),
        ("resized", ["--pixels", "0,0,40,40", "--width", "33"]),
        ("turned", ["--angle", "0.2", "--pixels", "10,12,40,40"]),
        ("strip-location", ["--pixels", "16,16,32,32", "--strip", "location"]),
        ("strip-all", ["--pixels", "16,16,32,32", "--strip", "all"]),
    ]

    /// One crop: a source, a route, an output format.
    struct Case: Sendable, CustomTestStringConvertible {
        var source: Source
        var route: String
        var options: [String]
        var output: String
        var testDescription: String { "\(source) \(route) -> .\(output)" }
    }

    static let cases: [Case] = sources.flatMap { source in
        routes.flatMap { route in
            let resampled = route.options.contains("--width") || route.options.contains("--angle")
            // WebP and AVIF write metadata by the same cleaned model as PNG
            // and JPEG: every source on two routes (exiftool reading every
            // output of every route took 9 s more; the variants and the
            // batch line below add a resized one of each).
            let newer =
                ["off-grid", "strip-location"].contains(route.name) ? webpOut : []
            let outputs =
                (source.isHEIF && !resampled ? ["png", "jpg", "heic"] : ["png", "jpg"]) + newer
            return outputs.map {
                Case(source: source, route: route.name, options: route.options, output: $0)
            }
        }
    }

    /// What a report says an output holds.
    struct Claims: CustomStringConvertible {
        var exif = false
        var icc = false
        var xmp = false
        var mpf = false
        var makerNoteRemoved = false
        var location = false
        var width = 0
        var height = 0
        var description: String {
            "exif \(exif), icc \(icc), xmp \(xmp), mpf \(mpf), location \(location), \(width)x\(height)"
        }

        /// The claims of one `written` object of `crop --json` and the run's
        /// `keptLocation`.
        init(written: [String: Any], keptLocation: [Any]) {
            width = written["width"] as? Int ?? -1
            height = written["height"] as? Int ?? -1
            location = !keptLocation.isEmpty
            if let chunks = (written["png"] as? [String: Any])?["chunks"] as? [String] {
                exif = chunks.contains("eXIf")
                icc = chunks.contains("iCCP")
                xmp = chunks.contains("iTXt")
            }
            // One shape for every format: the metadata's fate beside the
            // format's own facts.
            for entry in written["metadata"] as? [[String: Any]] ?? [] {
                let segment = (entry["segment"] as? String ?? "").lowercased()
                let present = entry["action"] as? String != "dropped"
                let reason = entry["reason"] as? String ?? ""
                if segment.contains("exif") {
                    exif = exif || present
                    makerNoteRemoved = makerNoteRemoved || reason.contains("MakerNote removed")
                }
                if segment.contains("icc") { icc = icc || present }
                if segment.contains("xmp") { xmp = xmp || present }
                if segment.contains("mpf") { mpf = mpf || present }
            }
        }
    }

    /// What exiftool finds against what the report claims, as a list of
    /// disagreements (empty when the file holds what the report says).
    static func disagreements(_ path: String, _ claims: Claims, checkSize: Bool = true) throws
        -> [String]
    {
        let tags = try ExifTool.tags(path)
        func has(_ prefix: String) -> Bool { tags.keys.contains { $0.hasPrefix(prefix) } }
        var found: [String] = []
        let exif = has("EXIF:IFD0:") || has("EXIF:ExifIFD:")
        if exif != claims.exif { found.append("EXIF: file \(exif), report \(claims.exif)") }
        if has("ICC_Profile:") != claims.icc {
            found.append("ICC profile: file \(has("ICC_Profile:")), report \(claims.icc)")
        }
        if has("XMP:") != claims.xmp {
            found.append("XMP: file \(has("XMP:")), report \(claims.xmp)")
        }
        if has("MPF:") != claims.mpf {
            found.append("MPF: file \(has("MPF:")), report \(claims.mpf)")
        }
        let location = tags.keys.contains { key in
            let tag = key.split(separator: ":").last.map(String.init)?.lowercased() ?? ""
            return !key.hasPrefix("Composite:")
                && (tag.contains("latitude") || tag.contains("longitude"))
        }
        if location != claims.location {
            found.append("location: file \(location), report \(claims.location)")
        }
        if let thumbnail = tags.keys.first(where: { $0.hasPrefix("EXIF:IFD1:Thumbnail") }) {
            found.append("a thumbnail (\(thumbnail)) the report does not name")
        }
        if claims.makerNoteRemoved,
            let note = tags.keys.first(where: { $0.hasPrefix("MakerNotes:") })
        {
            found.append("the report removed the MakerNote, the file has \(note)")
        }
        // The stored size, and the size as seen (EXIF orientation applied).
        let size = (tags["Composite:ImageSize"] as? String ?? "").split(separator: " ")
            .compactMap { Int($0) }
        guard size.count == 2 else { return found + ["no image size read"] }
        // exiftool gives a HEIC's coded size, before its clean aperture:
        // there the stored size is CropKit's reading (after `clap`), whose
        // decode other suites compare with libheif's and Pillow's.
        var stored = size
        if path.hasSuffix(".heic") {
            let storedSize = try ImageSource.open(path: path).storedSize
            stored = [storedSize.width, storedSize.height]
        }
        if let width = tags["EXIF:ExifIFD:ExifImageWidth"] as? Int,
            let height = tags["EXIF:ExifIFD:ExifImageHeight"] as? Int,
            [width, height] != stored
        {
            found.append("EXIF dimensions \(width)x\(height) in a \(stored[0])x\(stored[1]) image")
        }
        if checkSize {
            let orientation = tags["EXIF:IFD0:Orientation"] as? Int ?? 1
            let seen = orientation >= 5 ? [size[1], size[0]] : size
            if seen != [claims.width, claims.height] {
                found.append(
                    "seen as \(seen[0])x\(seen[1]) (orientation \(orientation)), report \(claims.width)x\(claims.height)"
                )
            }
        }
        return found
    }

    @Test(arguments: cases)
    func eachCropHoldsWhatItsReportSays(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.\(c.output)").path
        let run = cropkit(
            ["crop", c.source.resolved, "--json"] + c.options + ["-o", output])
        try #require(run.status == 0, "\(run.err)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let claims = Claims(
            written: report["written"] as? [String: Any] ?? [:],
            keptLocation: report["keptLocation"] as? [Any] ?? [])
        // A HEIC's size as seen is its transforms', which exiftool does not
        // apply; its stored size is checked against the EXIF dimensions.
        let found = try Self.disagreements(output, claims, checkSize: c.output != "heic")
        #expect(found.isEmpty, "\(c.testDescription): \(found); report: \(claims)")
    }

    /// Variants of one decode: each output against its own report.
    @Test(arguments: sources)
    func variantsHoldWhatTheirReportsSay(_ source: Source) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = ["crop", source.resolved, "--json"]
        var outputs = ["a.jpg", "b.png", "c.jpg"]
        if source.isHEIF { outputs.append("d.heic") }
        var options = [
            ["--pixels", "3,5,41,37"], ["--pixels", "0,0,40,40", "--width", "20"],
            ["--angle", "0.2", "--pixels", "10,12,40,40"],
        ]
        if source.isHEIF { options.append(["--pixels", "0,0,64,64"]) }
        for name in Self.webpOut.map({ "e-\($0).\($0)" }) {
            outputs.append(name)
            options.append(["--pixels", "2,3,30,31", "--width", "24"])
        }
        for (name, option) in zip(outputs, options) {
            arguments += ["-o", folder.appendingPathComponent(name).path] + option
        }
        let run = cropkit(arguments)
        try #require(run.status == 0, "\(run.err)")
        let reports = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [[String: Any]])
        try #require(reports.count == outputs.count)
        for report in reports {
            let written = report["written"] as? [String: Any] ?? [:]
            let path = try #require(written["path"] as? String)
            let claims = Claims(
                written: written, keptLocation: report["keptLocation"] as? [Any] ?? [])
            let found = try Self.disagreements(path, claims, checkSize: !path.hasSuffix(".heic"))
            #expect(found.isEmpty, "\(source) variant \(path): \(found); report: \(claims)")
        }
    }

    /// A batch line says where the location stays and each output's size:
    /// both hold in the files (a batch line's report names no segments).
    @Test(arguments: sources)
    func batchLinesHoldWhatTheirReportsSay(_ source: Source) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = source.resolved
        let manifest = folder.appendingPathComponent("m.jsonl")
        let region = #""pixels":{"x":3,"y":5,"width":41,"height":37}"#
        let out = folder.path
        let lines = [
            #"{"input":"\#(input)","variants":[{"output":"\#(out)/v1.jpg",\#(region)},{"output":"\#(out)/v2.png",\#(region),"width":20},{"output":"\#(out)/v3.jpg","pixels":{"x":10,"y":12,"width":40,"height":40},"angle":0.2}\#(Self.webpOut.map { #",{"output":"\#(out)/v4.\#($0)",\#(region)}"# }.joined())]}"#
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: manifest)
        let reportPath = folder.appendingPathComponent("report.jsonl").path
        let run = cropkit(["batch", manifest.path, "--report", reportPath])
        try #require(run.status == 0, "\(run.err) \(run.out)")
        let text = try String(contentsOfFile: reportPath, encoding: .utf8)
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let variants = try #require(line["variants"] as? [[String: Any]])
        try #require(variants.count == 3 + Self.webpOut.count)
        for variant in variants {
            let name = try #require(variant["output"] as? String)
            let path = name
            let tags = try ExifTool.tags(path)
            let kept = !(variant["keptLocation"] as? [Any] ?? []).isEmpty
            let location = tags.keys.contains {
                !$0.hasPrefix("Composite:") && $0.lowercased().contains("latitude")
            }
            #expect(
                kept == location, "\(source) \(name): file location \(location), report \(kept)")
            let size = (tags["Composite:ImageSize"] as? String ?? "").split(
                separator: " "
            )
            .compactMap { Int($0) }
            let orientation = tags["EXIF:IFD0:Orientation"] as? Int ?? 1
            let seen = orientation >= 5 ? Array(size.reversed()) : size
            #expect(
                seen == [variant["width"] as? Int ?? -1, variant["height"] as? Int ?? -1],
                "\(source) \(name): seen \(seen), report \(variant)")
            #expect(!tags.keys.contains { $0.hasPrefix("EXIF:IFD1:Thumbnail") })
        }
    }
}
