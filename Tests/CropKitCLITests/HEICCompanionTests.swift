import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// A HEIC's companions cut by the companion rule: pillow-heif (libheif
/// 1.23, an independent reader) reads every auxiliary image, depth image
/// and second eye of the source and of the crop, and every pixel of each
/// is compared with the rule's bilinear sample of the source's (in the
/// images as shown, the rect as the person sees it). On whole companion
/// pixels whose tiles can be copied the cut is exact; elsewhere the goal
/// holds (mean error at most 1 code, 99th percentile at most 4). The
/// groups, the `tmap` payload, the gain map's `hdrgm` and Apple's headroom
/// stay as the source has them, nothing of the whole photo is left, and the
/// report names each companion with the size the file holds.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)),
    .enabled(
        if: Pillow.python != nil,
        "needs the virtual environment's pillow-heif (scripts/python-venv)"
    ))
struct HEICCompanionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        /// The rect as the person sees the photo.
        var rect: PixelRect<ImagePixels>
        /// Whether every companion's cut must be bit-exact (whole tiles).
        var exact: Bool
        var testDescription: String { "\(file) \(rect)" }
    }

    static let pug = "heif/pillow-heif/pug.heic"
    static let iphone16 = "heif/libvips/apple-heic-gainmap.heic"
    static let galaxy = "hdr/galaxys25ultra_gainmap_tmap.heic"
    static let vision = "hdr/visionpro_spatial_stereo.heic"
    static let depth = "heif/libvips/Example1.heic"
    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect<ImagePixels> {
        PixelRect(x: x, y: y, width: w, height: h)
    }

    static let cases: [Case] = [
        // pug: a 2016x1512 gain map (scale 1/2) and a 768x576 depth map.
        Case(file: pug, rect: rect(0, 0, 4032, 3024), exact: true),
        // On whole gain-map pixels (the map encoded: no tile of its one
        // coded image lies inside), then between them.
        Case(file: pug, rect: rect(1000, 1000, 1200, 900), exact: false),
        Case(file: pug, rect: rect(1001, 1003, 1201, 899), exact: false),
        Case(file: pug, rect: rect(4025, 3019, 7, 5), exact: false),
        // The iPhone 16: turned (irot 270), five companions and a tmap.
        Case(file: iphone16, rect: rect(1001, 2001, 1501, 999), exact: false),
        Case(file: iphone16, rect: rect(4283, 5711, 1, 1), exact: false),
        // The Galaxy S25: a YCbCr gain map grid (scale 1/4) and a tmap.
        Case(file: galaxy, rect: rect(0, 0, 4000, 1848), exact: true),
        Case(file: galaxy, rect: rect(401, 203, 1001, 799), exact: false),
        // The Vision Pro: two eyes, 5x5 tiles each.
        Case(file: vision, rect: rect(512, 512, 1024, 1024), exact: true),
        Case(file: vision, rect: rect(100, 100, 900, 700), exact: false),
        // A depth image beside a photo with EXIF orientation 6 (not applied
        // in a HEIF).
        Case(file: depth, rect: rect(2000, 800, 1500, 1200), exact: false),
    ]

    /// Each source file as pillow-heif reads it, read once for every case
    /// (its companions decoded in one Python process).
    static let sources: [String: HEIFCompanionImages]? = {
        let files = [pug, iphone16, galaxy, vision, depth]
        guard let read = try? Pillow.heifCompanions(files.map { TestData.path($0) }) else {
            return nil
        }
        return Dictionary(uniqueKeysWithValues: zip(files, read))
    }()

    static func source(_ file: String) throws -> HEIFCompanionImages? {
        guard let sources else { throw CocoaError(.fileReadCorruptFile) }
        return sources[file]
    }

    @Test(arguments: cases)
    func everyCompanionIsCutByTheRule(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(c.file)
        let out = folder.appendingPathComponent("out.heic").path
        let r = c.rect
        let run = cropkit([
            "crop", source, "--pixels", "\(r.x),\(r.y),\(r.width),\(r.height)", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        let before = try #require(try Self.source(c.file))
        let after = try #require(try Pillow.heifCompanions([out]))[0]
        #expect(after.width == r.width && after.height == r.height)
        // Every companion but Apple's linear thumbnail (the whole photo).
        let expected = before.images.filter { !$0.kind.hasSuffix("linearthumbnail") }
        #expect(after.images.map(\.kind) == expected.map(\.kind))
        #expect(after.groups == before.groups)
        #expect(after.toneMap == before.toneMap, "the tmap payload is kept whole")
        for (source, cut) in zip(expected, after.images) where source.width > 0 {
            let grid = try #require(
                CompanionGrid<ImagePixels>(
                    imageSize: PixelSize(width: before.width, height: before.height),
                    companionSize: PixelSize(width: source.width, height: source.height)),
                "\(source.kind)")
            let rule = grid.cut(r)
            #expect(
                cut.width == rule.size.width && cut.height == rule.size.height,
                "\(source.kind): \(cut.width)x\(cut.height), the rule says \(rule.size)")
            // pillow-heif decodes 8-bit auxiliary images only; a 10-bit one
            // (the Styles map) is checked for its size alone.
            guard !source.samples.isEmpty, !cut.samples.isEmpty,
                cut.width == rule.size.width, cut.height == rule.size.height
            else { continue }
            let bands = source.bands
            // Whole companion pixels: the cut is the source's rect, sample
            // for sample (compared directly: the reference of a 2016x1512
            // map costs seconds in a debug build).
            if c.exact, let copy = rule.copyRect {
                var differing = 0
                for j in 0..<cut.height {
                    let from = ((copy.y + j) * source.width + copy.x) * bands
                    let row = source.samples[from..<from + cut.width * bands]
                    let to = j * cut.width * bands
                    if !row.elementsEqual(cut.samples[to..<to + cut.width * bands]) {
                        differing += 1
                    }
                }
                #expect(differing == 0, "\(source.kind): \(differing) rows differ")
                continue
            }
            #expect(!c.exact, "\(source.kind): the rule gives no whole-pixel rect")
            let (mean, p99, largest) = Self.errors(
                of: cut.samples, against: rule, source: source.samples, bands: bands)
            print(
                "\(c.testDescription) \(source.kind): \(rule.size), mean \(mean), p99 \(p99), max \(largest)"
            )
            #expect(mean <= 1 && p99 <= 4, "\(source.kind): mean \(mean), p99 \(p99)")
        }
        // Nothing of the whole photo is left.
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
        // The gain map's description and Apple's headroom, as the source's.
        let sourceTags = try ExifTool.tags(source, groups: "-G1")
        let cutTags = try ExifTool.tags(out, groups: "-G1")
        let described = sourceTags.keys.filter {
            $0.hasPrefix("XMP-hdrgm:") || $0.hasPrefix("XMP-HDRGainMap:")
                || $0 == "Apple:HDRHeadroom" || $0 == "Apple:HDRGain"
        }
        for key in described {
            #expect("\(cutTags[key] ?? "none")" == "\(sourceTags[key] ?? "none")", "\(key)")
        }
        // The report names each companion with the size the file holds
        // (stored: across and down exchanged for the turned iPhone 16).
        let turned = c.file == Self.iphone16
        for cut in after.images
        where cut.width > 0 && cut.kind != "depth" && !cut.kind.hasPrefix("image-") {
            let size = turned ? "\(cut.height)x\(cut.width)" : "\(cut.width)x\(cut.height)"
            #expect(
                run.out.split(separator: "\n").contains {
                    $0.contains(" \(cut.kind) (") && $0.contains("cut to the crop: \(size) of")
                }, "\(cut.kind) \(size): \(run.out)")
        }
    }

    /// A HEIC cropped to JPEG carries Apple's gain map in the form an
    /// iPhone's JPEG holds it: after the crop in an MPF index, turned
    /// upright as the crop is, its XMP naming it (`apdi`) with the HEIC's
    /// `HDRGainMapVersion`, Apple's headroom in the MakerNote. exiftool
    /// extracts it, Pillow decodes it, and it is compared with the rule's
    /// reference of the source's gain map as pillow-heif reads it (the
    /// JPEG goal: mean at most 0.6 codes, 99th percentile at most 3).
    @Test(arguments: [
        (pug, rect(1001, 1003, 1201, 899)), (pug, rect(0, 0, 1, 1)),
        (iphone16, rect(1001, 2001, 1501, 999)), (galaxy, rect(401, 203, 1001, 799)),
    ])
    func aJPEGOfAHEICCarriesItsGainMap(file: String, rect r: PixelRect<ImagePixels>) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(file)
        let out = folder.appendingPathComponent("out.jpg").path
        let run = cropkit([
            "crop", source, "--pixels", "\(r.x),\(r.y),\(r.width),\(r.height)", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        let apple = file != Self.galaxy
        #expect(
            run.out.contains(
                apple
                    ? "rewritten APP2 MPF: Apple's HDR gain map cut to the crop"
                    : "rewritten APP2 MPF: the HDR gain map cut to the crop"), "\(run.out)")
        #expect(!run.err.contains("standard dynamic range"), "\(run.err)")
        let read = try #require(try Self.source(file))
        let found = try #require(read.images.first { $0.kind.hasSuffix("hdrgainmap") })
        // Samsung's map is coded YCbCr with neutral chroma: its red is its
        // gray.
        let map = (
            width: found.width, height: found.height,
            samples: found.bands == 1
                ? found.samples
                : stride(from: 0, to: found.samples.count, by: found.bands).map {
                    found.samples[$0]
                }
        )
        let extracted = folder.appendingPathComponent("map.jpg")
        try ExifTool.binary("MPImage2", of: out).write(to: extracted)
        let cutMap = try #require(
            try Pillow.rgb(Array(try Data(contentsOf: extracted)), mode: "L"))
        let grid = try #require(
            CompanionGrid<ImagePixels>(
                imageSize: PixelSize(width: read.width, height: read.height),
                companionSize: PixelSize(width: map.width, height: map.height)))
        let rule = grid.cut(r)
        #expect(cutMap.width == rule.size.width && cutMap.height == rule.size.height)
        guard cutMap.width == rule.size.width, cutMap.height == rule.size.height else { return }
        let (mean, p99, _) = Self.errors(
            of: cutMap.samples, against: rule, source: map.samples, bands: 1)
        print("JPEG of \(file) \(r): gain map \(rule.size), mean \(mean), p99 \(p99)")
        #expect(mean <= 0.6 && p99 <= 3, "mean \(mean), p99 \(p99)")
        let mapTags = try ExifTool.tags(extracted.path, groups: "-G1")
        let sourceTags = try ExifTool.tags(source, groups: "-G1")
        let cutTags = try ExifTool.tags(out, groups: "-G1")
        if apple {
            #expect(
                mapTags["XMP-apdi:AuxiliaryImageType"] as? String
                    == "urn:com:apple:photo:2020:aux:hdrgainmap")
            #expect(
                "\(mapTags["XMP-HDRGainMap:HDRGainMapVersion"] ?? "none")"
                    == "\(sourceTags["XMP-HDRGainMap:HDRGainMapVersion"] ?? "none")")
            #expect(
                "\(cutTags["Apple:HDRHeadroom"] ?? "none")"
                    == "\(sourceTags["Apple:HDRHeadroom"] ?? "none")")
        } else {
            // Ultra HDR: the map's own hdrgm parameters as the HEIC's map
            // XMP says them, the crop's XMP naming it with its length.
            for key in ["XMP-hdrgm:GainMapMax", "XMP-hdrgm:HDRCapacityMax", "XMP-hdrgm:Gamma"] {
                #expect(mapTags[key] != nil, "\(key)")
            }
            #expect("\(cutTags["XMP-hdrgm:Version"] ?? "none")" == "1.0")
            let length = try ExifTool.binary("MPImage2", of: out).count
            #expect(
                "\(cutTags["XMP-Container:DirectoryItemLength"] ?? "none")".contains("\(length)"))
        }
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
    }

    /// How far `cut` (`bands` samples a pixel) is from the rule's bilinear
    /// reference of `source`: the mean, the 99th percentile and the largest
    /// error. The positions are the rule's own (`sampleX`, `sampleY`, as
    /// `referenceSample` takes them), found once a column and a row: a
    /// debug build spends seconds on them a sample.
    static func errors(
        of cut: [UInt8], against rule: CompanionCut<ImagePixels>, source: [UInt8], bands: Int
    ) -> (mean: Double, p99: Double, largest: Double) {
        let (mw, mh) = (rule.grid.companionSize.width, rule.grid.companionSize.height)
        let (w, h) = (rule.size.width, rule.size.height)
        func clamp(_ v: Int, _ side: Int) -> Int { min(max(v, 0), side - 1) }
        let xs = (0..<w).map { rule.sampleX($0) }.map { ($0.floor, $0.fraction) }
        let ys = (0..<h).map { rule.sampleY($0) }.map { ($0.floor, $0.fraction) }
        var errors: [Double] = []
        errors.reserveCapacity(w * h * bands)
        for (j, (y0, ty)) in ys.enumerated() {
            let (r0, r1) = (clamp(y0, mh) * mw, clamp(y0 + 1, mh) * mw)
            for (i, (x0, tx)) in xs.enumerated() {
                let (c0, c1) = (clamp(x0, mw), clamp(x0 + 1, mw))
                for b in 0..<bands {
                    func at(_ row: Int, _ column: Int) -> Double {
                        Double(source[(row + column) * bands + b])
                    }
                    let reference =
                        (at(r0, c0) * (1 - tx) + at(r0, c1) * tx) * (1 - ty)
                        + (at(r1, c0) * (1 - tx) + at(r1, c1) * tx) * ty
                    errors.append(abs(Double(cut[(j * w + i) * bands + b]) - reference))
                }
            }
        }
        // The same reference as the public one, at the corners.
        for (i, j) in [(0, 0), (w - 1, h - 1)] where bands == 1 {
            let reference = rule.referenceSample(i, j) { x, y in Double(source[y * mw + x]) }
            #expect(abs(abs(Double(cut[j * w + i]) - reference) - errors[j * w + i]) < 1e-9)
        }
        errors.sort()
        let mean = errors.reduce(0, +) / Double(errors.count)
        return (mean, errors[min(errors.count - 1, errors.count * 99 / 100)], errors.last ?? 0)
    }

    /// Companions count against `--max-memory`: the iPhone 16's cut side
    /// by side need more than the photo alone, and a limit between the two
    /// refuses the crop with them (naming them) and takes it without.
    @Test func companionsCountAgainstTheMemoryLimit() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.heic").path
        let crop = [
            "crop", TestData.path(Self.iphone16), "--pixels", "1142,2106,2000,1500", "-o", out,
            "--max-memory", "115M",
        ]
        let kept = cropkit(crop)
        #expect(kept.status == 2, "\(kept.err)")
        #expect(kept.err.contains("the companions being cut (2 at once)"), "\(kept.err)")
        let dropped = cropkit(crop + ["--companions", "drop"])
        #expect(dropped.status == 0, "\(dropped.err)")
    }

    /// `--companions drop` keeps none of them and says so for each; a
    /// lossless crop off the companions' whole pixels drops them, saying
    /// why, and the crop goes on.
    @Test func droppedCompanionsAreNamed() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(Self.pug)
        let out = folder.appendingPathComponent("out.heic").path
        let drop = cropkit([
            "crop", source, "--pixels", "1024,1024,1024,1024", "--companions", "drop", "-o", out,
        ])
        try #require(drop.status == 0, "\(drop.err)")
        #expect(drop.out.contains("dropped auxiliary item 52"))
        #expect(drop.out.contains("--companions drop: the crop shows in standard dynamic range"))
        let none = try #require(try Pillow.heifCompanions([out]))
        #expect(none[0].images.isEmpty)
        let lossless = cropkit([
            "crop", source, "--pixels", "1024,1024,1024,1024", "--lossless", "-o", out, "--force",
        ])
        try #require(lossless.status == 0, "\(lossless.err)")
        #expect(
            lossless.err.contains(
                "the HDR gain map was dropped: 1 of its edge tiles hold pixels beyond the crop, and a lossless crop encodes nothing"
            ), "\(lossless.err)")
        #expect(lossless.out.contains("dropped auxiliary item 54"), "\(lossless.out)")
    }
}

/// HEIC companions that lie, made from the real files by changing a few
/// bytes: each is dropped with a warning that names it and why, the crop
/// goes on (exit 0), and nothing of the whole photo is left.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(
        if: Pillow.python != nil,
        "needs the virtual environment's pillow-heif (scripts/python-venv)"
    ))
struct LyingHEICCompanionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var file: String
        var find: [UInt8]
        var replace: [UInt8]
        /// What the warning says.
        var warning: String
        /// The auxiliary types the crop still carries.
        var kept: [String]
        var testDescription: String { name }
    }

    static let gainMap = "urn:com:apple:photo:2020:aux:hdrgainmap"
    /// pug's gain map `ispe`: 2016x1512.
    static let ispe = Array("ispe".utf8) + [0, 0, 0, 0, 0, 0, 0x07, 0xE0, 0, 0, 0x05, 0xE8]

    static let cases: [Case] = [
        Case(
            name: "a gain map past the pixel limit", file: HEICCompanionTests.pug, find: ispe,
            replace: Array("ispe".utf8) + [0, 0, 0, 0, 0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60],
            warning: "the HDR gain map was dropped: ", kept: []),
        Case(
            name: "a 0x0 gain map", file: HEICCompanionTests.pug, find: ispe,
            replace: Array("ispe".utf8) + [UInt8](repeating: 0, count: 12),
            warning: "declares a size of 0x0", kept: []),
        Case(
            name: "a gain map 8 % off the photo's aspect ratio", file: HEICCompanionTests.pug,
            find: ispe,
            replace: Array("ispe".utf8) + [0, 0, 0, 0, 0, 0, 0x07, 0xE0, 0, 0, 0x05, 0x78],
            warning: "not at the 4032x3024 photo's aspect ratio", kept: []),
        // The Galaxy's gain map grid says 2x2 tiles and names 2.
        Case(
            name: "a gain map grid with missing tiles", file: HEICCompanionTests.galaxy,
            find: [0, 0, 0, 1, 0x03, 0xE8, 0x01, 0xCE],
            replace: [0, 0, 1, 1, 0x03, 0xE8, 0x01, 0xCE],
            warning: "is 2x2 = 4 tiles but references 2", kept: []),
        // The depth map's auxl (54 to 49) becomes the photo's (49 to 52):
        // the gain map and the photo name each other.
        Case(
            name: "cyclic auxl", file: HEICCompanionTests.pug,
            find: Array("auxl".utf8) + [0, 54, 0, 1, 0, 49],
            replace: Array("auxl".utf8) + [0, 49, 0, 1, 0, 52],
            warning: "its 'auxl' references are cyclic", kept: []),
    ]

    @Test(arguments: cases)
    func aLyingCompanionIsDroppedAndSaidSo(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestData.path(c.file))))
        let at = try #require(
            bytes.indices.first { bytes[$0...].starts(with: c.find) }, "the bytes to change")
        bytes.replaceSubrange(at..<at + c.find.count, with: c.replace)
        let source = folder.appendingPathComponent("lying.heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        let out = folder.appendingPathComponent("out.heic").path
        // On the tile grid: the photo's tiles copied (the leak check then
        // decodes nothing), the lying companion judged all the same.
        let run = cropkit(["crop", source, "--pixels", "1024,512,1024,1024", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(run.err.contains(c.warning), "\(run.err)")
        #expect(run.err.contains("was dropped"), "\(run.err)")
        let read = try #require(try Pillow.heifCompanions([out]))
        #expect(read[0].images.map(\.kind).filter { $0 != "depth" } == c.kept)
        #expect(read[0].toneMap.isEmpty, "a tmap over a dropped gain map is dropped")
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
    }
}
