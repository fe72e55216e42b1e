import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// The crop `--pixels x,y,w,h` of `options` (the second), unturned, of a
/// photo of `photo` pixels: the reference crop of a resized one.
private func unturnedCrop(_ options: [String], photo: (width: Int, height: Int)) throws
    -> StraightenedCrop
{
    let r = options[1].split(separator: ",").compactMap { Int($0) }
    return try StraightenedCrop(
        frame: StraightenedFrame(
            imageSize: PixelSize(width: photo.width, height: photo.height), angle: 0),
        rect: PixelRect(x: r[0], y: r[1], width: r[2], height: r[3]))
}

/// A JPEG's MPF gain map (Ultra HDR's, Apple's) cut by the companion rule:
/// Pillow reads the output's gain map through its MPF index, and every
/// pixel is compared with the rule's bilinear sample of the source's gain
/// map (read by Pillow too). Where the rect scales to whole gain-map
/// pixels on its block grid the copy is exact; elsewhere the alignment goal
/// holds (mean error at most 0.6 codes, 99th percentile at most 3). The
/// gain map's own `hdrgm` description is kept whole.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)),
    .enabled(
        if: Pillow.python != nil, "needs the virtual environment's Pillow (scripts/python-venv)"))
struct GainMapCutTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var rect: PixelRect<StoredPixels>
        /// Whether the gain map's cut must be bit-exact.
        var exact: Bool
        var testDescription: String { "\(file) \(rect)" }
    }

    static let pixel = "hdr/pixel6pro_ultrahdr.jpg"
    static let iphone = "camera/iphone14promax_p3_hdrgainmap.jpg"
    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect<StoredPixels> {
        PixelRect(x: x, y: y, width: w, height: h)
    }

    static let cases: [Case] = [
        // 1/4 each way: 1024 is the map's 256, on its 8-pixel block grid.
        Case(file: pixel, rect: rect(1024, 1024, 1600, 1280), exact: true),
        Case(file: pixel, rect: rect(0, 0, 4080, 3072), exact: true),
        // Whole map pixels off its block grid: encoded again, not sampled.
        Case(file: pixel, rect: rect(1000, 1000, 1200, 900), exact: false),
        // Between map pixels: sampled by the rule.
        Case(file: pixel, rect: rect(1001, 1003, 1201, 899), exact: false),
        Case(file: pixel, rect: rect(0, 0, 7, 5), exact: false),
        Case(file: pixel, rect: rect(4073, 3067, 7, 5), exact: false),
        Case(file: pixel, rect: rect(3000, 2, 1080, 3070), exact: false),
        Case(file: pixel, rect: rect(4079, 3071, 1, 1), exact: false),
        // Apple's map is larger than its 56x70 photo (scale 6.23 x 6.2).
        Case(file: iphone, rect: rect(0, 0, 56, 70), exact: true),
        Case(file: iphone, rect: rect(13, 17, 29, 31), exact: false),
        Case(file: iphone, rect: rect(55, 69, 1, 1), exact: false),
        Case(file: iphone, rect: rect(0, 0, 9, 11), exact: false),
    ]

    @Test(arguments: cases)
    func theGainMapIsCutByTheRule(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(c.file)
        let out = folder.appendingPathComponent("out.jpg").path
        let r = c.rect
        let run = cropkit([
            "crop", source, "--pixels", "\(r.x),\(r.y),\(r.width),\(r.height)", "--gain-map",
            "crop", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        // exiftool finds each gain map through its file's MPF index,
        // Pillow decodes it.
        let map = try #require(try Self.gainMap(source))
        let cutMap = try #require(try Self.gainMap(out))
        let tags = try ExifTool.tags(source)
        let photo = (
            width: tags["File:ImageWidth"] as? Int ?? 0,
            height: tags["File:ImageHeight"] as? Int ?? 0
        )

        let grid = try #require(
            CompanionGrid<StoredPixels>(
                imageSize: PixelSize(width: photo.width, height: photo.height),
                companionSize: PixelSize(width: map.width, height: map.height)))
        let cut = grid.cut(r)
        #expect(cutMap.width == cut.size.width && cutMap.height == cut.size.height)
        guard cutMap.width == cut.size.width, cutMap.height == cut.size.height else { return }
        var errors: [Double] = []
        for j in 0..<cut.size.height {
            for i in 0..<cut.size.width {
                let reference = cut.referenceSample(i, j) { x, y in
                    Double(map.samples[y * map.width + x])
                }
                errors.append(abs(Double(cutMap.samples[j * cutMap.width + i]) - reference))
            }
        }
        errors.sort()
        let mean = errors.reduce(0, +) / Double(errors.count)
        let p99 = errors[min(errors.count - 1, errors.count * 99 / 100)]
        print(
            "gain map \(c.testDescription): \(cut.size), mean \(mean), p99 \(p99), max \(errors.last ?? 0)"
        )
        if c.exact {
            #expect(errors.last == 0, "\(c.testDescription): largest error \(errors.last ?? 0)")
        }
        #expect(mean <= 0.6 && p99 <= 3, "\(c.testDescription): mean \(mean), p99 \(p99)")
        // The gain map's own description, whole.
        let extracted = folder.appendingPathComponent("map.jpg")
        let data = try ExifTool.binary("MPImage2", of: out)
        try data.write(to: extracted)
        let cutTags = try ExifTool.tags(extracted.path, groups: "-G1")
        let sourceExtracted = folder.appendingPathComponent("source-map.jpg")
        try ExifTool.binary("MPImage2", of: source).write(to: sourceExtracted)
        let sourceTags = try ExifTool.tags(sourceExtracted.path, groups: "-G1")
        let described = sourceTags.keys.filter {
            $0.hasPrefix("XMP-hdrgm:") || $0.hasPrefix("XMP-apdi:")
                || $0.hasPrefix("XMP-HDRGainMap:")
        }
        #expect(!described.isEmpty, "\(c.file): the source's gain map describes itself")
        for key in described {
            #expect("\(cutTags[key] ?? "none")" == "\(sourceTags[key] ?? "none")", "\(key)")
        }
    }

    /// The gain map the MPF index of the file at `path` names, as exiftool
    /// extracts it and Pillow decodes it (one sample a pixel).
    static func gainMap(_ path: String) throws -> (width: Int, height: Int, samples: [UInt8])? {
        let bytes = try ExifTool.binary("MPImage2", of: path)
        guard !bytes.isEmpty else { return nil }
        return try Pillow.rgb(Array(bytes), mode: "L")
    }

    /// An MPO stereo pair (a Nintendo 3DS's): the other eye is cut by the
    /// same rect (its grid is the photo's), as the photo is: its blocks
    /// copied on the grid (its luma then exactly the source eye's at the
    /// rect), encoded again with its own tables off it; indexed anew, and
    /// nothing of the whole photo left.
    @Test(arguments: [("96,64,320,240", true), ("97,63,321,241", false)])
    func theOtherEyeIsCutByTheSameRect(rect text: String, onGrid: Bool) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("camera/nintendo3ds_stereo.mpo")
        let out = folder.appendingPathComponent("pair.jpg").path
        let run = cropkit(["crop", source, "--pixels", text, "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains("rewritten APP2 MPF: the other eye of the stereo pair cut to the crop")
        )
        let r = text.split(separator: ",").compactMap { Int($0) }
        let eye = try #require(try Self.gainMap(source))
        let cutEye = try #require(try Self.gainMap(out))
        #expect(cutEye.width == r[2] && cutEye.height == r[3])
        guard cutEye.width == r[2], cutEye.height == r[3] else { return }
        var total = 0.0
        var largest = 0
        for y in 0..<r[3] {
            for x in 0..<r[2] {
                let a = Int(cutEye.samples[y * r[2] + x])
                let b = Int(eye.samples[(r[1] + y) * eye.width + r[0] + x])
                total += Double(abs(a - b))
                // Pillow's gray is made from RGB, whose chroma a decoder
                // upsamples from neighbours the crop no longer has within
                // two pixels of its edges: the copied blocks are compared
                // inside that border.
                if x >= 2, y >= 2, x < r[2] - 2, y < r[3] - 2 { largest = max(largest, abs(a - b)) }
            }
        }
        let mean = total / Double(r[2] * r[3])
        if onGrid {
            #expect(largest == 0, "largest difference \(largest)")
        } else {
            #expect(mean <= 2, "mean difference \(mean)")
        }
        #expect(try ExifTool.tags(out, groups: "-G1")["MPF0:NumberOfImages"] as? Int == 2)
    }

    /// The stereo pair's other eye, read once for the suite.
    static let pairsEye = Result {
        try gainMap(TestData.path("camera/nintendo3ds_stereo.mpo"))
    }

    /// A resized, circled or straightened crop of the pair resamples the
    /// other eye with it (scale 1: the output's size), each pixel the
    /// bilinear sample at the crop's own sample position (unturned here),
    /// encoded at the crop's quality; read back through the MPF index by
    /// exiftool and Pillow.
    @Test(arguments: [
        ["--pixels", "97,63,321,241", "--width", "200"],
        ["--pixels", "0,0,640,480", "--size", "64x64"],
        ["--pixels", "97,63,300,300", "--width", "150", "--circle"],
        ["--pixels", "97,63,321,241", "--angle", "3"],
    ])
    func theOtherEyeIsResampledWithTheCrop(options: [String]) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("camera/nintendo3ds_stereo.mpo")
        let out = folder.appendingPathComponent("pair.jpg").path
        let run = cropkit(["crop", source, "-o", out] + options)
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(
                "rewritten APP2 MPF: the other eye of the stereo pair resampled with the crop"),
            "\(run.out)")
        let eye = try #require(try Self.pairsEye.get())
        let cutEye = try #require(try Self.gainMap(out))
        // The photo's size as its frame header says (exiftool's File group).
        let written = try ExifTool.tags(out, groups: "-G1")
        #expect(
            cutEye.width == written["File:ImageWidth"] as? Int
                && cutEye.height == written["File:ImageHeight"] as? Int)
        #expect(written["MPF0:NumberOfImages"] as? Int == 2)
        guard !options.contains("--angle"), !options.contains("--circle") else { return }
        // The mean difference from the reference, and from the reference
        // one output pixel to the right (a misplaced eye would be nearer
        // that): the JPEG coding at the crop's quality costs about 2 codes
        // on this detailed photo at 64x64.
        let reference = CompanionReference(
            width: eye.width, height: eye.height, bands: 1, samples: eye.samples)
        let crop = try unturnedCrop(options, photo: (eye.width, eye.height))
        let cut = (cutEye.width, cutEye.height, cutEye.samples)
        let total = try reference.differences(of: cut, bands: 1, crop: crop).reduce(0, +)
        let shifted = try reference.differences(of: cut, bands: 1, crop: crop, shift: 1)
            .reduce(0, +)
        let pixels = Double(cutEye.width * cutEye.height)
        let (mean, off) = (total / pixels, shifted / pixels)
        print(
            "resampled eye \(options): \(cutEye.width)x\(cutEye.height), mean \(mean), a pixel off \(off)"
        )
        #expect(mean <= 3 && mean < off, "mean difference \(mean), a pixel off \(off)")
    }
}

/// A resized crop keeps its gain map, resampled with it (DESIGN.md:
/// straighten and resize apply to companions the same way): its size keeps
/// the map's scale against the output, `round(W·sx)` by `round(H·sy)`, and
/// each pixel samples the source's map at the crop's own sample position
/// scaled, `((x + (i + ½)·w/W'')·sx − ½, …)` unturned. A 1080-wide variant
/// of an Ultra HDR JPEG and an avatar of an iPhone HEIC stay HDR: Pillow
/// reads each output map through exiftool, and it is compared with that
/// reference of the source map (pillow-heif's for the HEIC).
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)),
    .enabled(
        if: Pillow.python != nil, "needs the virtual environment's Pillow (scripts/python-venv)"))
struct ResampledGainMapTests {
    /// The map a resampled crop decodes counts against `--max-memory`: a
    /// limit between the variant's need with it and without refuses the
    /// one, naming it, and takes the other.
    @Test func theGainMapCountsAgainstTheMemoryLimit() {
        let folder = (try? TestData.temporaryFolder()) ?? URL(fileURLWithPath: "/tmp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let crop = [
            "crop", TestData.path("hdr/pixel6pro_ultrahdr.jpg"), "--pixels", "1001,751,2001,1501",
            "--width", "1080", "-o", folder.appendingPathComponent("v.jpg").path,
            "--max-memory", "60M",
        ]
        let kept = cropkit(crop)
        #expect(kept.status == 2, "\(kept.err)")
        #expect(kept.err.contains("the gain map decoded, turned and resampled"), "\(kept.err)")
        #expect(cropkit(crop + ["--companions", "drop"]).status == 0)
    }

    @Test(arguments: [
        ("hdr/pixel6pro_ultrahdr.jpg", "1001,751,2001,1501", "1080"),
        ("camera/iphone14promax_p3_hdrgainmap.jpg", "8,8,32,40", "20"),
        ("heif/pillow-heif/pug.heic", "1001,1003,1201,899", "256"),
    ])
    func aResizedCropKeepsItsGainMapResampled(file: String, rect text: String, width: String)
        throws
    {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(file)
        let out = folder.appendingPathComponent("out.jpg").path
        let run = cropkit(["crop", source, "--pixels", text, "--width", width, "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains("rewritten APP2 MPF: the HDR gain map resampled with the crop"),
            "\(run.out)")
        let r = text.split(separator: ",").compactMap { Int($0) }
        // The source's map as shown (these photos are not turned).
        let map: (width: Int, height: Int, samples: [UInt8])
        let photo: (width: Int, height: Int)
        if file.hasSuffix(".heic") {
            let read = try #require(try HEICCompanionTests.source(file))
            let aux = try #require(
                read.images.first { $0.kind == "urn:com:apple:photo:2020:aux:hdrgainmap" })
            map = (aux.width, aux.height, aux.samples)
            photo = (read.width, read.height)
        } else {
            map = try #require(try GainMapCutTests.gainMap(source))
            let tags = try ExifTool.tags(source)
            #expect((tags["EXIF:Orientation"] as? Int ?? 1) == 1)
            photo = (tags["File:ImageWidth"] as? Int ?? 0, tags["File:ImageHeight"] as? Int ?? 0)
        }
        let cutMap = try #require(try GainMapCutTests.gainMap(out))
        let outTags = try ExifTool.tags(out)
        let (ow, oh) = (
            outTags["File:ImageWidth"] as? Int ?? 0, outTags["File:ImageHeight"] as? Int ?? 0
        )
        // round(W·sx), half up.
        let expected = (
            max(1, (2 * ow * map.width + photo.width) / (2 * photo.width)),
            max(1, (2 * oh * map.height + photo.height) / (2 * photo.height))
        )
        #expect(cutMap.width == expected.0 && cutMap.height == expected.1)
        guard cutMap.width == expected.0, cutMap.height == expected.1 else { return }
        let (sx, sy) = (
            Double(map.width) / Double(photo.width), Double(map.height) / Double(photo.height)
        )
        func clamp(_ v: Int, _ side: Int) -> Int { min(max(v, 0), side - 1) }
        var errors: [Double] = []
        for j in 0..<cutMap.height {
            let y =
                (Double(r[1]) + (Double(j) + 0.5) * Double(r[3]) / Double(cutMap.height)) * sy
                - 0.5
            let (y0, ty) = (Int(y.rounded(.down)), y - y.rounded(.down))
            for i in 0..<cutMap.width {
                let x =
                    (Double(r[0]) + (Double(i) + 0.5) * Double(r[2]) / Double(cutMap.width)) * sx
                    - 0.5
                let (x0, tx) = (Int(x.rounded(.down)), x - x.rounded(.down))
                func at(_ px: Int, _ py: Int) -> Double {
                    Double(map.samples[clamp(py, map.height) * map.width + clamp(px, map.width)])
                }
                let reference =
                    (at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty)
                    + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty
                errors.append(abs(Double(cutMap.samples[j * cutMap.width + i]) - reference))
            }
        }
        errors.sort()
        let mean = errors.reduce(0, +) / Double(errors.count)
        let p99 = errors[min(errors.count - 1, errors.count * 99 / 100)]
        print(
            "resized \(file) \(text) to \(width): map \(cutMap.width)x\(cutMap.height), mean \(mean), p99 \(p99)"
        )
        #expect(mean <= 0.6 && p99 <= 3, "mean \(mean), p99 \(p99)")
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
        if file.hasSuffix("ultrahdr.jpg") {
            // An Ultra HDR photo stays one: its version, and its container's
            // GainMap item the map's new length.
            let tags = try ExifTool.tags(out, groups: "-G1")
            #expect(tags["XMP-hdrgm:Version"] != nil, "\(tags.keys.sorted())")
            let length = try ExifTool.binary("MPImage2", of: out).count
            #expect(
                "\(tags["XMP-Container:DirectoryItemLength"] ?? "none")".contains("\(length)"),
                "\(tags["XMP-Container:DirectoryItemLength"] ?? "none") vs \(length)")
        }
    }
}

/// Google's depth photo: its depth map (`GDepth:Data`, a PNG in extended
/// XMP, on the photo's own grid) is cut with the crop, losslessly, and
/// written back as a new extended XMP packet whose GUID (its MD5) the main
/// XMP names; the unblurred whole photo (`GImage:Data`) is removed, the
/// depth range kept. exiftool reads the new depth map (it checks the
/// GUID), Pillow decodes it, and it equals the source's at the rect.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)),
    .enabled(
        if: Pillow.python != nil, "needs the virtual environment's Pillow (scripts/python-venv)"))
struct GoogleDepthTests {
    @Test(arguments: ["101,203,400,500", "0,0,768,1024", "767,1023,1,1"])
    func theDepthMapIsCutWithTheCrop(rect text: String) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("camera/android_depthmap_xmp.jpg")
        let out = folder.appendingPathComponent("out.jpg").path
        let run = cropkit(["crop", source, "--pixels", text, "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains("rewritten APP1 extended XMP: Google's depth map (GDepth:Data) cut"),
            "\(run.out)")
        let r = text.split(separator: ",").compactMap { Int($0) }
        let depth = try #require(
            try Pillow.rgb(Array(try ExifTool.binary("DepthImage", of: source)), mode: "RGBA"))
        let cut = try #require(
            try Pillow.rgb(Array(try ExifTool.binary("DepthImage", of: out)), mode: "RGBA"))
        #expect(cut.width == r[2] && cut.height == r[3])
        guard cut.width == r[2], cut.height == r[3] else { return }
        var differing = 0
        for y in 0..<r[3] {
            let from = ((r[1] + y) * depth.width + r[0]) * 4
            if !depth.samples[from..<from + r[2] * 4].elementsEqual(
                cut.samples[(y * r[2] * 4)..<((y + 1) * r[2] * 4)])
            {
                differing += 1
            }
        }
        #expect(differing == 0, "\(differing) rows differ")
        let tags = try ExifTool.tags(out, groups: "-G1")
        let sourceTags = try ExifTool.tags(source, groups: "-G1")
        #expect(tags["XMP-GImage:ImageData"] == nil, "the unblurred whole photo is removed")
        for key in ["XMP-GDepth:Near", "XMP-GDepth:Far", "XMP-GDepth:Format", "XMP-GDepth:Mime"] {
            #expect("\(tags[key] ?? "none")" == "\(sourceTags[key] ?? "none")", "\(key)")
        }
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
        // Dropped on request, as before.
        let dropped = cropkit(
            ["crop", source, "--pixels", text, "-o", out, "--force", "--companions", "drop"])
        #expect(dropped.status == 0)
        #expect(try ExifTool.tags(out, groups: "-G1")["XMP-GDepth:DepthImage"] == nil)
    }

    /// The depth photo's map, read once for the suite.
    static let sourceDepth = Result {
        try Pillow.rgb(
            Array(
                try ExifTool.binary(
                    "DepthImage", of: TestData.path("camera/android_depthmap_xmp.jpg"))),
            mode: "RGBA")
    }

    /// A resized, circled or straightened crop resamples the depth map
    /// with it (scale 1 beside this photo): the map the output's size, and
    /// a resized one's values the bilinear samples at the crop's own
    /// sample positions (``StraightenedCrop``), read back by exiftool and
    /// Pillow. The range properties stay; the whole photo goes.
    @Test(arguments: [
        ["--pixels", "101,203,400,500", "--width", "160"],
        ["--pixels", "0,0,768,1024", "--size", "77x91"],
        ["--pixels", "101,203,400,400", "--width", "300", "--circle"],
        ["--pixels", "101,203,400,500", "--angle", "4"],
    ])
    func theDepthMapIsResampledWithTheCrop(options: [String]) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("camera/android_depthmap_xmp.jpg")
        let out = folder.appendingPathComponent("out.jpg").path
        let run = cropkit(["crop", source, "-o", out] + options)
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(
                "rewritten APP1 extended XMP: Google's depth map (GDepth:Data) cut to the crop"),
            "\(run.out)")
        #expect(run.out.contains("resampled with the crop"), "\(run.out)")
        let depth = try #require(try Self.sourceDepth.get())
        let cut = try #require(
            try Pillow.rgb(Array(try ExifTool.binary("DepthImage", of: out)), mode: "RGBA"))
        let written = try ExifTool.tags(out, groups: "-G1")
        #expect(
            cut.width == written["File:ImageWidth"] as? Int
                && cut.height == written["File:ImageHeight"] as? Int)
        if !options.contains("--angle") {
            let reference = CompanionReference(
                width: depth.width, height: depth.height, bands: 4, samples: depth.samples)
            let worst =
                try reference.differences(
                    of: (cut.width, cut.height, cut.samples), bands: 4, band: 0,
                    crop: unturnedCrop(options, photo: (depth.width, depth.height))
                ).last ?? 0
            // A PNG: each value the sample rounded.
            #expect(worst <= 0.5 + 1e-9, "largest difference \(worst)")
        }
        let tags = try ExifTool.tags(out, groups: "-G1")
        let sourceTags = try ExifTool.tags(source, groups: "-G1")
        #expect(tags["XMP-GImage:ImageData"] == nil, "the unblurred whole photo is removed")
        for key in ["XMP-GDepth:Near", "XMP-GDepth:Far", "XMP-GDepth:Format", "XMP-GDepth:Mime"] {
            #expect("\(tags[key] ?? "none")" == "\(sourceTags[key] ?? "none")", "\(key)")
        }
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
    }
}
