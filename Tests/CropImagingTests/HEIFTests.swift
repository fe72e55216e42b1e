import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// HEIF input: the container CropKit reads itself, the tiles libheif
/// decodes, the crop as seen. The generated "coordinates" files hold their
/// own displayed position in every pixel (R = x & 255, G = y & 255,
/// B = (x >> 8) << 4 | y >> 8; 10-bit: R = x, G = y, B = (7x + 13y) & 1023;
/// alpha A = (x + 2y) & 255), so a crop is checked pixel by pixel.
@Suite(
    .announcesSkips,
    .enabled(
        if: TestData.isPresent && HEIFDecoder.libheifVersion != nil, "needs testdata and libheif"))
struct HEIFTests {
    static let generated = TestData.files(under: "heif/generated", extensions: ["heic"])

    /// The crop `rect` (as seen) of `file`, written as PNG in memory and
    /// read back.
    static func crop(_ file: String, _ rect: PixelRect<ImagePixels>? = nil) throws -> (
        RasterImage, ImageSource, [UInt8]
    ) {
        let source = try ImageSource.open(path: TestData.path(file))
        let seen = rect ?? PixelRect(size: source.orientation.orientedSize(source.storedSize))
        let plan = try CropJob(region: .pixels(seen)).plan(for: source)
        let sink = MemorySink()
        _ = try plan.export(to: sink)
        let png = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop.png"))
        return (try png.decode().image, png, sink.bytes)
    }

    /// The pixels of the coordinates pattern that differ from what `image`
    /// (the crop at `origin`) holds.
    static func wrongPixels(_ image: RasterImage, origin: (Int, Int), tenBit: Bool, alpha: Bool)
        -> Int
    {
        var wrong = 0
        let xs = origin.0..<origin.0 + image.width
        for y in 0..<image.height {
            let py = origin.1 + y
            let row = tenBit ? [] : CoordinatesPattern.rgbRow(xs, y: py)
            for x in 0..<image.width {
                let px = origin.0 + x
                for channel in 0..<3 {
                    let tenBitSample =
                        channel == 0 ? px : channel == 1 ? py : (7 * px + 13 * py) & 1023
                    let expected = tenBit ? tenBitSample : row[3 * x + channel]
                    if image.sample(x: x, y: y, channel: channel) >> (tenBit ? 6 : 0) != expected {
                        wrong += 1
                        break
                    }
                }
                if alpha, image.sample(x: x, y: y, channel: 3) != (px + 2 * py) & 255 { wrong += 1 }
            }
        }
        return wrong
    }

    @Test("every generated coordinates file, whole and at random rects, is pixel-exact as seen")
    func coordinatesFilesArePixelExact() throws {
        let files = Self.generated.filter { $0.contains("/coords") }
        #expect(files.count >= 25)
        var generator = SystemRandomNumberGenerator()
        for file in files {
            let source = try ImageSource.open(path: TestData.path(file))
            let seen = source.orientation.orientedSize(source.storedSize)
            var rects = [PixelRect<ImagePixels>(size: seen)]
            for _ in 0..<3 {
                let w = Int.random(in: 1...seen.width, using: &generator)
                let h = Int.random(in: 1...seen.height, using: &generator)
                rects.append(
                    PixelRect(
                        x: Int.random(in: 0...seen.width - w, using: &generator),
                        y: Int.random(in: 0...seen.height - h, using: &generator), width: w,
                        height: h))
            }
            for rect in rects {
                let (image, _, _) = try Self.crop(file, rect)
                #expect(image.width == rect.width && image.height == rect.height, "\(file)")
                let tenBit = file.contains("coords10")
                #expect(image.bitDepth == (tenBit ? 16 : 8), "\(file)")
                let wrong = Self.wrongPixels(
                    image, origin: (rect.x, rect.y), tenBit: tenBit, alpha: file.contains("alpha"))
                #expect(wrong == 0, "\(file) at \(rect): \(wrong) wrong pixels")
            }
        }
    }

    @Test("irot and imir, in ipma order, make the orientation; EXIF inside a HEIF is not applied")
    func transformsMakeTheOrientation() throws {
        for n in 1...8 {
            let source = try ImageSource.open(
                path: TestData.path("heif/generated/coords_orient\(n)_96x64_lossless.heic"))
            #expect(source.orientation.rawValue == n)
        }
        let cases: [(String, EXIFOrientation)] = [
            ("coords_exif6_no_irot_96x64_lossless.heic", .up),
            ("coords_irot270_exif8_96x64_lossless.heic", .right),
            ("coords_irot270_exif1_96x64_lossless.heic", .right),
            ("coords_orient5_97x61_clap_lossless.heic", .leftMirrored),
        ]
        for (file, orientation) in cases {
            let source = try ImageSource.open(path: TestData.path("heif/generated/\(file)"))
            #expect(source.orientation == orientation, "\(file)")
        }
        // The EXIF still says 8; it is reported, not applied.
        let source = try ImageSource.open(
            path: TestData.path("heif/generated/coords_irot270_exif8_96x64_lossless.heic"))
        guard let info = source.header as? HEIFFileInfo else {
            Issue.record("not read as HEIF")
            return
        }
        #expect(info.exifOrientation == 8)
        #expect(info.transforms == ["irot 270"])
    }

    /// The rows of `EXPECTED.tsv`, by file, as column → value.
    static func expected() throws -> [String: [String: String]] {
        let text = try String(
            contentsOfFile: TestData.path("heif/EXPECTED.tsv"), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let header = lines[0].split(separator: "\t", omittingEmptySubsequences: false).map(
            String.init)
        var rows: [String: [String: String]] = [:]
        for line in lines.dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(
                String.init)
            rows[fields[0]] = Dictionary(uniqueKeysWithValues: zip(header, fields))
        }
        return rows
    }

    @Test("the structure read agrees with EXPECTED.tsv for every file of the corpus")
    func structureMatchesTheCorpusTable() throws {
        let rows = try Self.expected()
        #expect(rows.count >= 36)
        for (file, row) in rows {
            let source = try ImageSource.open(path: TestData.path("heif/\(file)"))
            guard let info = source.header as? HEIFFileInfo else {
                Issue.record("\(file) not read as HEIF")
                continue
            }
            let canvas = "\(info.layout.width)x\(info.layout.height)"
            let seen = source.orientation.orientedSize(source.storedSize)
            if row["clap_wxh"] == "-" { #expect(row["stored_wxh"] == canvas, "\(file)") }
            #expect(row["displayed_wxh"] == "\(seen.width)x\(seen.height)", "\(file)")
            #expect(row["bit_depth"] == "\(info.bitDepth)", "\(file)")
            #expect(row["alpha"] == (info.alpha == nil ? "no" : "yes"), "\(file)")
            if row["grid"] == "yes" {
                #expect(row["grid_rows_x_cols"] == "\(info.layout.rows)x\(info.layout.columns)")
                #expect(row["tile_wxh"] == "\(info.layout.tileWidth)x\(info.layout.tileHeight)")
            } else {
                #expect(!info.layout.isGrid, "\(file)")
            }
            let irot = info.transforms.first { $0.hasPrefix("irot") }.map {
                String($0.dropFirst(5))
            }
            #expect((row["irot_ccw"] ?? "-") == (irot ?? "-"), "\(file)")
            let imir = info.transforms.first { $0.hasPrefix("imir") }.map {
                String($0.dropFirst(5))
            }
            #expect((row["imir_axis"] ?? "-") == (imir ?? "-"), "\(file)")
            if let clap = info.cleanAperture {
                #expect(row["clap_wxh"] == "\(clap.width)x\(clap.height)", "\(file)")
            }
            if row["colour"]?.hasPrefix("icc:") == true {
                #expect(info.iccProfile != nil, "\(file)")
                #expect(info.iccOnTiles == (row["colour"]?.contains("on tiles only") == true))
            }
            #expect((row["exif"] == "yes") == (info.exif != nil), "\(file)")
        }
    }

    /// libheif's own decode of the whole file, transforms applied: an
    /// independent assembly of the tiles to compare with.
    static func libheifWhole(_ file: String, width: Int, height: Int) throws -> [UInt8] {
        try libheifWhole(
            bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestData.path(file)))),
            width: width, height: height)
    }

    /// ``libheifWhole(_:width:height:)`` of a file in memory.
    static func libheifWhole(bytes file: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try HEIFDecoder.decodeWhole(file: file, width: width, height: height, bitDepth: 8)
    }

    @Test(
        "real iPhone and iPad photos: corners and centre, as seen, equal libheif's whole decode",
        arguments: [
            "heif/pillow-heif/arrow.heic", "heif/pillow-heif/pug.heic",
            "heif/imagesize/heic.heic", "heif/libvips/Example1.heic",
            "heif/pillow-heif/empty_icc.heic",
        ])
    func realPhotosMatchTheWholeDecode(file: String) throws {
        let source = try ImageSource.open(path: TestData.path(file))
        let seen = source.orientation.orientedSize(source.storedSize)
        let whole = try Self.libheifWhole(file, width: seen.width, height: seen.height)
        let side = 300
        let rects = [
            PixelRect<ImagePixels>(x: 0, y: 0, width: side, height: side),
            PixelRect(x: seen.width - side, y: 0, width: side, height: side),
            PixelRect(x: 0, y: seen.height - side, width: side, height: side),
            PixelRect(x: seen.width - side, y: seen.height - side, width: side, height: side),
            PixelRect(x: seen.width / 2 - 257, y: seen.height / 2 - 190, width: 515, height: 381),
        ]
        for rect in rects {
            let (image, _, _) = try Self.crop(file, rect)
            var wrong = 0
            for y in 0..<rect.height {
                let row = ((rect.y + y) * seen.width + rect.x) * 3
                for i in 0..<rect.width * 3
                where image.samples[y * rect.width * 3 + i] != whole[row + i] {
                    wrong += 1
                }
            }
            #expect(wrong == 0, "\(file) at \(rect): \(wrong) samples differ")
        }
    }

    @Test(
        "a crop decodes only the tiles it touches: a corner crop of a photo whose other tiles are damaged"
    )
    func onlyTouchedTilesAreDecoded() throws {
        // Tile 1 of this 2x2 grid holds random bytes: the tile-0 corner
        // crops, the whole image is refused naming the tile.
        let file = "corrupt/heif/30_tile2_data_random_bytes.heic"
        let (image, _, _) = try Self.crop(file, PixelRect(x: 0, y: 0, width: 16, height: 16))
        #expect(image.width == 16)
        #expect(throws: ImagingError.self) { try Self.crop(file) }
        do {
            _ = try Self.crop(file)
        } catch let error as ImagingError {
            #expect(error.description.contains("tile 1"))
        }
    }

    @Test(
        "the PNG of an iPhone photo carries its tiles' ICC, a clean EXIF (orientation 1) and nothing of the whole photo"
    )
    func metadataOfAnIPhonePhoto() throws {
        let file = "heif/pillow-heif/arrow.heic"
        let source = try ImageSource.open(path: TestData.path(file))
        #expect(try !LeakCheck.findings(in: source).isEmpty)  // its thumbnail
        let (image, png, bytes) = try Self.crop(
            file, PixelRect(x: 100, y: 200, width: 640, height: 480))
        #expect(image.width == 640)
        let chunks = Self.chunks(bytes)
        #expect(chunks.map(\.type) == ["IHDR", "iCCP", "eXIf"] + chunks.dropFirst(3).map(\.type))
        let summary = ImageFileSummary(png)
        #expect(summary.profile?.contains("Display P3") == true)
        #expect(try LeakCheck.findings(in: png).isEmpty)
        let exif = try #require(chunks.first { $0.type == "eXIf" }?.data)
        // Big-endian (Apple): orientation tag 0x0112, SHORT, 1 value, 1.
        #expect(Self.contains(exif, [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]))
    }

    /// The chunks of a PNG in memory, in order (IDAT's data left out).
    static func chunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
        var found: [(type: String, data: [UInt8])] = []
        var at = 8
        while at + 12 <= bytes.count {
            let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            found.append((type, type == "IDAT" ? [] : Array(bytes[at + 8..<at + 8 + length])))
            at += 12 + length
        }
        return found
    }

    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        return (0...bytes.count - pattern.count).contains {
            bytes[$0..<$0 + pattern.count].elementsEqual(pattern)
        }
    }

    @Test("an nclx-only file's PNG says its colour with cICP; a 10-bit one is 16-bit with sBIT 10")
    func colourChunks() throws {
        let (_, _, nclx) = try Self.crop("heif/generated/nclx_p3_srgbtrc_96x64_420.heic")
        #expect(Self.chunks(nclx).first { $0.type == "cICP" }?.data == [12, 13, 0, 1])
        let (image, _, ten) = try Self.crop("heif/generated/coords10_300x200_lossless.heic")
        #expect(image.bitDepth == 16)
        #expect(Self.chunks(ten).first { $0.type == "sBIT" }?.data == [10, 10, 10])
    }

    @Test("an iPhone photo cropped to JPEG: the crop's size, upright, ICC and clean EXIF kept")
    func heicToJPEG() throws {
        let source = try ImageSource.open(path: TestData.path("heif/pillow-heif/arrow.heic"))
        let rect = PixelRect<ImagePixels>(x: 10, y: 20, width: 333, height: 222)
        let plan = try CropJob(region: .pixels(rect), format: .jpeg(JPEGEncoder()))
            .plan(for: source)
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        #expect(report.details(as: JPEGWriteReport.self)?.method == .reencoded)
        let jpeg = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop.jpg"))
        #expect(jpeg.storedSize == PixelSize(width: 333, height: 222))
        #expect(jpeg.orientation == .up)
        #expect(ImageFileSummary(jpeg).profile?.contains("Display P3") == true)
        #expect(try LeakCheck.findings(in: jpeg).isEmpty)
        #expect(
            report.details(as: JPEGWriteReport.self)?.metadata.contains {
                $0.segment.hasPrefix("thumbnail") && $0.action == .dropped
            } == true)
    }

    /// The crop `rect` (as seen) of `file` written as HEIC by `encoder`,
    /// with its plan and report.
    static func heicCrop(_ file: String, _ rect: PixelRect<ImagePixels>, _ encoder: HEIFEncoder)
        throws -> (bytes: [UInt8], plan: CropPlan, report: CropReport)
    {
        let source = try ImageSource.open(path: TestData.path(file))
        let plan = try CropJob(region: .pixels(rect), format: .heif(encoder)).plan(for: source)
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        return (sink.bytes, plan, report)
    }

    /// The largest difference of any sample between `a` and `b`.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test(
        "HEIC from HEIC on the tile grid: every tile copied, libheif's whole decode equals the source at the rect",
        arguments: [
            "heif/pillow-heif/arrow.heic",
            "heif/generated/coords_orient7_600x400_grid256_lossless.heic",
        ])
    func losslessHEICCrop(file: String) throws {
        let (bytes, plan, report) = try Self.heicCrop(
            file, PixelRect(x: 100, y: 120, width: 300, height: 200),
            HEIFEncoder(snapsToBlocks: true))
        let heif = try #require(report.details(as: HEIFWriteReport.self))
        #expect(heif.reencodedTiles == 0)
        #expect(heif.copiedTiles >= 1)
        let rect = plan.result.rect
        #expect(rect.width >= 300 && rect.height >= 200)
        let out = try ImageSource(ImageInput(bytes: bytes, name: "crop.heic"))
        #expect(out.orientation == plan.source.orientation)
        #expect(out.orientation.orientedSize(out.storedSize) == rect.size)
        let decoded = try Self.libheifWhole(bytes: bytes, width: rect.width, height: rect.height)
        let (source, _, _) = try Self.crop(file, rect)
        #expect(decoded == source.samples, "the copied tiles decode to the source's pixels")
        #expect(try LeakCheck.findings(in: out).isEmpty)
    }

    @Test(
        "a HEIC crop off the tile grid: edge tiles encoded again without the pixels beyond the rect; clap alone would leave them"
    )
    func edgeTilesAreEncodedAgain() throws {
        let file = "heif/pillow-heif/arrow.heic"
        // Wide enough to hold a tile whole: tiles are copied, edge tiles
        // encoded again (a rect holding none is one coded image instead).
        let rect = PixelRect<ImagePixels>(x: 700, y: 900, width: 1100, height: 1000)
        let (bytes, _, report) = try Self.heicCrop(file, rect, HEIFEncoder())
        let heif = try #require(report.details(as: HEIFWriteReport.self))
        #expect(heif.reencodedTiles > 0)
        #expect(heif.cleanAperture != nil)
        let out = try ImageSource(ImageInput(bytes: bytes, name: "crop.heic"))
        #expect(try LeakCheck.findings(in: out).isEmpty)
        let decoded = try Self.libheifWhole(bytes: bytes, width: rect.width, height: rect.height)
        let (source, _, _) = try Self.crop(file, rect)
        #expect(
            Self.maxDifference(decoded, source.samples) <= 16, "the default quality stays close")
        // The control: the same crop with the edge tiles copied as they are.
        var leaky = HEIFEncoder()
        leaky.fixesEdges = false
        let (leakyBytes, _, leakyReport) = try Self.heicCrop(file, rect, leaky)
        #expect(leakyReport.details(as: HEIFWriteReport.self)?.reencodedTiles == 0)
        let findings = try LeakCheck.findings(
            in: ImageSource(ImageInput(bytes: leakyBytes, name: "leaky.heic")))
        #expect(findings.contains { $0.detail.contains("hidden pixels") })
    }

    @Test("--lossless refuses a HEIC rect off the tile grid and names the nearest lossless rects")
    func losslessRefusesOffGrid() throws {
        let source = try ImageSource.open(path: TestData.path("heif/pillow-heif/arrow.heic"))
        let job = CropJob(
            region: .pixels(PixelRect(x: 100, y: 120, width: 300, height: 200)),
            format: .heif(HEIFEncoder(method: .lossless)))
        #expect {
            _ = try job.plan(for: source)
        } throws: { error in
            guard case .notLossless(_, let grown, _, let grid)? = error as? CropPlanError else {
                return false
            }
            return grid == PixelSize(width: 512, height: 512) && grown.x == 0 && grown.width >= 400
        }
    }

    @Test("HEIC output needs a HEIC source: refused when planned")
    func heicOutputNeedsHEICSource() throws {
        let jpeg = ImageInput(bytes: try DemoPhoto.jpeg(width: 64, height: 48), name: "a.jpg")
        let source = try ImageSource(jpeg)
        let job = CropJob(
            region: .pixels(PixelRect(x: 0, y: 0, width: 8, height: 8)),
            format: .heif(HEIFEncoder()))
        #expect(throws: CropPlanError.self) { try job.plan(for: source) }
    }

    @Test(
        "an odd clean-aperture origin on 4:2:0 tiles: noted, and libheif 1.15 decodes the copied tile to the source's pixels at the rect"
    )
    func oddCleanApertureOrigin() throws {
        let file = "heif/generated/icc_displayp3_96x64_420.heic"
        let rect = PixelRect<ImagePixels>(x: 29, y: 21, width: 39, height: 25)
        var copying = HEIFEncoder()
        copying.fixesEdges = false  // the tile as it is: only the clap cuts
        let (bytes, _, report) = try Self.heicCrop(file, rect, copying)
        let heif = try #require(report.details(as: HEIFWriteReport.self))
        #expect(heif.cleanAperture == PixelRect(x: 29, y: 21, width: 39, height: 25))
        #expect(heif.notes.contains { $0.contains("odd") })
        let decoded = try Self.libheifWhole(bytes: bytes, width: rect.width, height: rect.height)
        let (source, _, _) = try Self.crop(file, rect)
        #expect(Self.maxDifference(decoded, source.samples) == 0)
    }

    @Test("the leak check does not mistake an encoder's repeated edge for hidden pixels")
    func repeatedEdgeIsNotALeak() throws {
        // 1000x700 on 512-pixel tiles: the right column and bottom row code
        // pixels beyond the image, the edge repeated (as encoders pad).
        let photo = try DemoPhoto.heic(width: 1000, height: 700, tile: 512)
        let source = try ImageSource(ImageInput(bytes: photo, name: "photo.heic"))
        let findings = try LeakCheck.findings(in: source)
        #expect(!findings.contains { $0.detail.contains("hidden pixels") }, "\(findings)")
    }

    @Test(
        "real photos seen in every orientation: corners and centre equal libheif's whole decode, re-turned",
        arguments: [
            "heif/pillow-heif/arrow.heic", "heif/pillow-heif/pug.heic", "heif/imagesize/heic.heic",
            "heif/libvips/Example1.heic", "heif/pillow-heif/empty_icc.heic",
        ])
    func realPhotosInEveryOrientation(file: String) throws {
        let source = try ImageSource.open(path: TestData.path(file))
        let stored = source.storedSize
        let own = source.orientation
        let seen = own.orientedSize(stored)
        let whole = try Self.libheifWhole(file, width: seen.width, height: seen.height)
        let side = 48
        for orientation in EXIFOrientation.allCases {
            let view = orientation.orientedSize(stored)
            let rects = [
                PixelRect<ImagePixels>(x: 0, y: 0, width: side, height: side),
                PixelRect(x: view.width - side, y: 0, width: side, height: side),
                PixelRect(x: 0, y: view.height - side, width: side, height: side),
                PixelRect(x: view.width - side, y: view.height - side, width: side, height: side),
                PixelRect(x: view.width / 2 - 20, y: view.height / 2 - 13, width: side, height: 31),
            ]
            for rect in rects {
                let plan = try CropJob(region: .pixels(rect), orientation: orientation)
                    .plan(for: source)
                let sink = MemorySink()
                _ = try plan.export(to: sink)
                let image = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop.png"))
                    .decode().image
                var wrong = 0
                for y in 0..<rect.height {
                    for x in 0..<rect.width {
                        // The stored pixel seen at (x, y) in this orientation,
                        // where libheif shows it (in the file's own).
                        let at = orientation.storedRect(
                            PixelRect(x: rect.x + x, y: rect.y + y, width: 1, height: 1),
                            storedSize: stored)
                        let shown = own.orientedRect(at, storedSize: stored)
                        let offset = (shown.y * seen.width + shown.x) * 3
                        for c in 0..<3
                        where image.sample(x: x, y: y, channel: c) != Int(whole[offset + c]) {
                            wrong += 1
                        }
                    }
                }
                #expect(wrong == 0, "\(file) seen as \(orientation) at \(rect): \(wrong) samples")
            }
        }
    }
}

/// HEIF headers that need no corpus and no libheif.
@Suite(.announcesSkips) struct HEIFHeaderTests {
    @Test(
        "ISO media that is not a HEIF image (an MP4) is refused as unsupported, naming its brands")
    func videoIsNotAnImage() {
        let body: [UInt8] = Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2mp41".utf8)
        let file: [UInt8] =
            [0, 0, 0, UInt8(8 + body.count)] + Array("ftyp".utf8) + body
            + [0, 0, 0, 16] + Array("mdat".utf8) + [UInt8](repeating: 0, count: 8)
        #expect {
            _ = try ImageSource(ImageInput(bytes: file, name: "video.mp4"))
        } throws: { error in
            guard case .unsupported(.heif, let detail)? = error as? ImagingError else {
                return false
            }
            return detail.contains("isom, isom, iso2, mp41")
        }
    }
}
