import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// An AVIF's companions cut by the companion rule, as a HEIC's are. The
/// corpus has no AVIF with one, so the source is made here: the 2x2 grid
/// of the lossless 1024x784 "coordinates" AVIF with an HDR gain map of
/// 512x392 (a smooth wave, as a real map is, AV1-coded by libheif's aom)
/// linked by `auxl`. A crop that holds a whole tile copies tiles and cuts
/// the map beside them as a HEIC crop does; any other is written from
/// pixels, the map sampled by the rule and coded at its cut's exact size
/// with no clean aperture (the photo has none there either). Read back
/// independently: the container by pillow-heif (libheif 1.23), the map's
/// samples by Pillow's AVIF reader (libavif).
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(
        if: HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles,
        "needs libheif.so.1 with an AV1 encoder (Debian: libheif1)"),
    .enabled(
        if: Pillow.python != nil,
        "needs the virtual environment's Pillow and pillow-heif (scripts/python-venv)"
    ))
struct AVIFCompanionTests {
    static let grid = "avif/generated/coords_grid2x2_1024x784_lossless.avif"
    static let role = "urn:com:apple:photo:2020:aux:hdrgainmap"

    /// A smooth gray wave, as a gain map is.
    static func wave(_ width: Int, _ height: Int) -> RasterImage {
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let v = 128 + 100 * sin(Double(x) / 37) * cos(Double(y) / 29)
                let i = (y * width + x) * 3
                samples[i] = UInt8(v.rounded())
                samples[i + 1] = samples[i]
                samples[i + 2] = samples[i]
            }
        }
        return RasterImage(
            width: width, height: height, colorType: .rgb, bitDepth: 8, samples: samples)
    }

    /// The grid AVIF with the map beside it: the tiles' bytes as the
    /// corpus file has them, the map's as libheif encoded it.
    /// The map, an AVIF of its own, encoded by aom once for the suite.
    static let mapFile = Result { () throws -> [UInt8] in
        try AVIFEncoder.encodeWhole(wave(512, 392), quality: 95, icc: nil, exif: nil, xmp: nil)
    }

    /// `turned`: the photo and its map both turned by `irot`/`imir` for
    /// that orientation, as a phone writes them.
    static func source(turned: EXIFOrientation = .up) throws -> [UInt8] {
        let source = try ImageSource.open(path: TestData.path(grid))
        let info = try #require((source.header as? AVIFFileInfo)?.heif)
        let map = try ImageSource(ImageInput(bytes: try mapFile.get(), name: "map.avif"))
        let mapTile = try #require((map.header as? AVIFFileInfo)?.heif.layout.tiles.first)
        let mapBytes = try mapTile.extents.flatMap {
            try map.input.read(at: $0.lowerBound, count: $0.count, format: .avif)
        }
        var writer = HEIFFileWriter(codec: .av1)
        var tiles: [Int] = []
        for tile in info.layout.tiles {
            let item = writer.addItem(
                type: "av01", hidden: true,
                properties: [
                    (tile.configuration, true),
                    (HEIFFileWriter.ispe(width: tile.width, height: tile.height), false),
                ] + tile.colourBoxes.map { ($0, false) })
            writer.setData(item, .extents(tile.extents))
            tiles.append(item)
        }
        let layout = info.layout
        let photo = writer.addGrid(
            of: tiles, rows: 2, columns: 2, width: layout.width, height: layout.height)
        writer.primary = photo
        let transforms = HEIFFileWriter.transformBoxes(turned).boxes
        for box in transforms { writer.addProperty(to: photo, box, essential: true) }
        let gain = writer.addItem(
            type: "av01", hidden: true,
            properties: [
                (mapTile.configuration, true),
                (HEIFFileWriter.ispe(width: 512, height: 392), false),
                (HEIFBoxWriter.box("auxC", version: 0, Array((role + "\0").utf8)), true),
            ] + mapTile.colourBoxes.map { ($0, false) } + transforms.map { ($0, true) })
        writer.setData(gain, .bytes(mapBytes))
        writer.reference("auxl", from: gain, to: [photo])
        let sink = MemorySink()
        _ = try writer.write(to: sink, input: source.input)
        return sink.bytes
    }

    /// The made AVIF, written into `folder`: its path.
    static func photo(in folder: URL, turned: EXIFOrientation = .up) throws -> String {
        let path = folder.appendingPathComponent("photo.avif").path
        try Data(try source(turned: turned)).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var rect: PixelRect<ImagePixels>
        /// How the photo is written: tiles copied, or from pixels.
        var route: String
        /// Whether the map's cut must equal the source's samples exactly.
        var exact: Bool
        var testDescription: String { "\(rect) (\(route))" }
    }

    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect<ImagePixels> {
        PixelRect(x: x, y: y, width: w, height: h)
    }

    static let cases: [Case] = [
        // The whole photo: every tile and the map copied.
        Case(rect: rect(0, 0, 1024, 784), route: "copied", exact: true),
        // Whole tiles with edge tiles encoded; the map on its whole pixels.
        Case(rect: rect(0, 0, 700, 500), route: "edge tile", exact: false),
        // No whole tile: from pixels, the map sampled between its pixels.
        Case(rect: rect(101, 77, 700, 500), route: "from pixels", exact: false),
        Case(rect: rect(3, 5, 41, 37), route: "from pixels", exact: false),
        Case(rect: rect(1023, 783, 1, 1), route: "from pixels", exact: false),
    ]

    @Test(arguments: cases)
    func theGainMapIsCutByTheRule(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        let out = folder.appendingPathComponent("crop.avif").path
        let r = c.rect
        let run = cropkit([
            "crop", input, "--pixels", "\(r.x),\(r.y),\(r.width),\(r.height)", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(c.route == "from pixels" ? "encoded from pixels" : "tile(s) copied"))
        let read = try #require(try Pillow.heifCompanions([input, out]))
        let (before, after) = (read[0], read[1])
        #expect(after.width == r.width && after.height == r.height)
        #expect(after.images.map(\.kind) == [Self.role])
        let (source, cut) = (before.images[0], try #require(after.images.first))
        let grid = try #require(
            CompanionGrid<ImagePixels>(
                imageSize: PixelSize(width: 1024, height: 784),
                companionSize: PixelSize(width: source.width, height: source.height)))
        let rule = grid.cut(r)
        #expect(cut.width == rule.size.width && cut.height == rule.size.height)
        #expect(
            run.out.contains(
                "the HDR gain map cut to the crop: \(rule.size.width)x\(rule.size.height) of its 512x392"
            ), "\(run.out)")
        // From pixels the map has no clean aperture: libavif, which ignores
        // one, shows it at the rule's size, so its samples are read.
        if c.route == "from pixels" { #expect(!cut.samples.isEmpty) }
        if !cut.samples.isEmpty {
            if c.exact {
                print("AVIF map \(c.testDescription): exact \(cut.samples.count)")
                #expect(cut.samples == source.samples)
            } else {
                let (mean, p99, _) = HEICCompanionTests.errors(
                    of: cut.samples, against: rule, source: source.samples, bands: source.bands)
                print("AVIF map \(c.testDescription): \(rule.size), mean \(mean), p99 \(p99)")
                #expect(mean <= 1 && p99 <= 4, "mean \(mean), p99 \(p99)")
            }
        }
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
    }

    /// `info` says what a crop does with the map; `--companions drop` drops
    /// it and the report says so.
    @Test func aDroppedMapIsNamed() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        let info = cropkit(["info", input])
        #expect(
            info.out.contains(
                "\(Self.role) 512x392, scale 0.5 x 0.5: cut by an AVIF crop, resampled with a resized or straightened one; dropped by other outputs"
            ), "\(info.out)")
        for options in [["--companions", "drop"]] {
            let out = folder.appendingPathComponent("crop.avif").path
            let run = cropkit(
                ["crop", input, "--pixels", "101,77,700,500", "-o", out, "--force"] + options)
            try #require(run.status == 0, "\(run.err)")
            #expect(run.out.contains("dropped auxiliary item"), "\(options): \(run.out)")
            let read = try #require(try Pillow.heifCompanions([out]))
            #expect(read[0].images.isEmpty, "\(options)")
        }
        // A JPEG has a place for a gain map, but not this one yet: said.
        let jpeg = cropkit([
            "crop", input, "--pixels", "101,77,700,500", "-o",
            folder.appendingPathComponent("crop.jpg").path,
        ])
        #expect(jpeg.status == 0)
        #expect(
            jpeg.err.contains(
                "the source has an HDR gain map auxiliary image (\(Self.role)), which a JPEG made from another format does not carry yet"
            ), "\(jpeg.err)")
    }

    struct Resampled: CustomTestStringConvertible, Sendable {
        var turned: EXIFOrientation
        var rect: PixelRect<ImagePixels>
        var options: [String]
        var output: PixelSize<ImagePixels>
        var testDescription: String {
            "orientation \(turned.rawValue), \(rect) \(options.joined(separator: " "))"
        }
    }

    static let resampled: [Resampled] = [
        // Turned: written upright from pixels, the map cut as stored and
        // turned by its own `irot` over the upright photo.
        Resampled(
            turned: .right, rect: rect(101, 77, 500, 700), options: [],
            output: .init(width: 500, height: 700)),
        Resampled(
            turned: .down, rect: rect(3, 5, 41, 37), options: [],
            output: .init(width: 41, height: 37)),
        Resampled(
            turned: .leftMirrored, rect: rect(0, 0, 784, 1024), options: [],
            output: .init(width: 784, height: 1024)),
        // Resized: the map keeps its scale against the output.
        Resampled(
            turned: .up, rect: rect(101, 77, 700, 500), options: ["--width", "300"],
            output: .init(width: 300, height: 214)),
        Resampled(
            turned: .up, rect: rect(0, 0, 1024, 784), options: ["--size", "64x64"],
            output: .init(width: 64, height: 64)),
        Resampled(
            turned: .left, rect: rect(10, 20, 700, 900), options: ["--size", "333x111"],
            output: .init(width: 333, height: 111)),
        Resampled(
            turned: .up, rect: rect(101, 77, 700, 500), options: ["--width", "1400", "--circle"],
            output: .init(width: 1400, height: 1000)),
        // Straightened: each sample at the crop's own turned position, the
        // corners beyond the photo taking the map's edge.
        Resampled(
            turned: .up, rect: rect(101, 77, 700, 500), options: ["--angle", "3"],
            output: .init(width: 700, height: 500)),
        Resampled(
            turned: .right, rect: rect(50, 60, 400, 500),
            options: ["--angle", "-7.5", "--width", "250"],
            output: .init(width: 250, height: 313)),
        Resampled(
            turned: .downMirrored, rect: rect(0, 0, 1024, 784), options: ["--angle", "45"],
            output: .init(width: 1024, height: 784)),
    ]

    /// A turned AVIF's crop (upright, from pixels) and a resized one
    /// carry the map: its size the rule's for the output
    /// (``CompanionGrid/cut(_:resizedTo:)``), its samples the rule's
    /// reference as displayed, read back by Pillow's libavif, which turns
    /// it by its `irot` and `imir` as it turns the source's.
    @Test(arguments: resampled)
    func aTurnedOrResizedCropCarriesTheMap(_ c: Resampled) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder, turned: c.turned)
        let out = folder.appendingPathComponent("crop.avif").path
        let r = c.rect
        let run = cropkit(
            ["crop", input, "--pixels", "\(r.x),\(r.y),\(r.width),\(r.height)", "-o", out]
                + c.options)
        try #require(run.status == 0, "\(run.err)")
        let read = try #require(try Pillow.heifCompanions([input, out]))
        let (before, after) = (read[0], read[1])
        #expect(after.width == c.output.width && after.height == c.output.height)
        #expect(after.images.map(\.kind) == [Self.role], "\(run.out)")
        let (source, cut) = (before.images[0], try #require(after.images.first))
        // The source's map as Pillow shows it: turned as the photo is.
        #expect(
            c.turned.swapsAxes
                ? source.width == 392 && source.height == 512
                : source.width == 512 && source.height == 392)
        let grid = try #require(
            CompanionGrid<ImagePixels>(
                imageSize: c.turned.orientedSize(PixelSize(width: 1024, height: 784)),
                companionSize: PixelSize(width: source.width, height: source.height)))
        let rule = grid.cut(r, resizedTo: c.output)
        #expect(cut.width == rule.size.width && cut.height == rule.size.height)
        #expect(
            run.out.contains(
                "the HDR gain map cut to the crop: \(rule.size.width)x\(rule.size.height)")
                || run.out.contains(
                    "the HDR gain map cut to the crop: \(rule.size.height)x\(rule.size.width)"),
            "\(run.out)")
        try #require(!cut.samples.isEmpty)
        var (mean, p99, _) = HEICCompanionTests.errors(
            of: cut.samples, against: rule, source: source.samples, bands: source.bands)
        if let at = c.options.firstIndex(of: "--angle"), let angle = Double(c.options[at + 1]) {
            // The crop's rect in its turned frame, as the report gives it.
            let json = cropkit(
                [
                    "crop", input, "--pixels", "\(r.x),\(r.y),\(r.width),\(r.height)", "-o", out,
                    "--force", "--json",
                ]
                    + c.options)
            let mapping = try #require(
                (try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])?[
                    "mapping"] as? [String: Any])
            let rect = try #require(mapping["outputRect"] as? [String: Int])
            let crop = try StraightenedCrop(
                frame: StraightenedFrame(imageSize: grid.imageSize, angle: angle),
                rect: PixelRect(
                    x: rect["x"] ?? 0, y: rect["y"] ?? 0, width: rect["width"] ?? 0,
                    height: rect["height"] ?? 0))
            let errors = try CompanionReference(
                width: source.width, height: source.height, bands: source.bands,
                samples: source.samples
            ).differences(
                of: (cut.width, cut.height, cut.samples), bands: source.bands, crop: crop)
            mean = errors.reduce(0, +) / Double(errors.count)
            p99 = errors[min(errors.count - 1, errors.count * 99 / 100)]
        }
        print("AVIF map \(c.testDescription): \(rule.size), mean \(mean), p99 \(p99)")
        #expect(mean <= 1 && p99 <= 4, "mean \(mean), p99 \(p99)")
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(leaks.out)")
    }

    /// From pixels, the map's cut counts against `--max-memory` beside the
    /// photo's encode; dropped, it does not.
    @Test func theMapCountsAgainstTheMemoryLimit() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        let out = folder.appendingPathComponent("crop.avif").path
        for (options, names) in [([String](), true), (["--companions", "drop"], false)] {
            let run = cropkit(
                ["crop", input, "--pixels", "101,77,700,500", "-o", out, "--max-memory", "33M"]
                    + options)
            #expect(run.status == 2, "\(options): \(run.err)")
            #expect(
                run.err.contains("the companions being cut (1 at once)") == names,
                "\(options): \(run.err)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// A crop of a crop: the first crop's map is one coded image of odd
    /// size (21x19, its chroma planes 11x10), whose last chroma row a cut
    /// at the bottom samples. Its tile's chroma side was rounded down, and
    /// the cut read past its one tile: a crash, now a cut map.
    @Test func aCropOfACropCutsItsOddSizedMap() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.photo(in: folder)
        let first = folder.appendingPathComponent("first.avif").path
        let second = folder.appendingPathComponent("second.avif").path
        #expect(cropkit(["crop", input, "--pixels", "3,5,41,37", "-o", first]).status == 0)
        for rect in ["1,1,40,36", "0,0,41,37", "40,36,1,1"] {
            let run = cropkit(["crop", first, "--pixels", rect, "-o", second, "--force"])
            #expect(run.status == 0, "\(rect): \(run.err)")
            #expect(run.out.contains("the HDR gain map cut to the crop"), "\(rect): \(run.out)")
        }
    }
}
