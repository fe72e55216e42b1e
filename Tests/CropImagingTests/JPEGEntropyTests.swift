import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@_spi(Testing) @testable import CropImaging

/// CropKit's own entropy decoder (`jpeg_entropy.c`), used by the lossless
/// JPEG crop of a file with restart markers: every crop it makes is
/// byte-identical to the one libjpeg-turbo's decoder makes (the encoder's
/// control, `decodesWithLibjpeg`), the report says which decoder ran, and
/// damaged scans neither crash it nor change a crop it makes.
@Suite(.announcesSkips) struct JPEGEntropyTests {
    /// The crop of `rect` (stored pixels) of the JPEG `bytes`, by CropKit's
    /// decoder where it applies and by libjpeg-turbo's: the report's
    /// entropy, and each output (or `nil` when it was refused).
    static func both(_ bytes: [UInt8], _ rect: PixelRect<ImagePixels>) throws -> (
        entropy: JPEGWriteReport.Entropy?, own: [UInt8]?, libjpeg: [UInt8]?,
        encoder: JPEGWriteReport.Encoder?
    ) {
        let own = crop(bytes, rect, .automatic)
        let control = crop(bytes, rect, .libjpeg)
        if control.bytes != nil { #expect(control.encoder == .libjpeg) }
        return (own.entropy, own.bytes, control.bytes, own.encoder)
    }

    @Test func ownDecoderCropsAsLibjpegTurboDoes() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let root = try #require(TestData.root)
        var files: [String] = []
        for name in ["camera", "hdr", "regions", "jpeg", "exif"] {
            files += TestData.files(under: name, extensions: ["jpg", "jpeg"])
        }
        var decodedOwn: [String] = []
        for file in files {
            let path = root.appendingPathComponent(file).path
            // The files with restart markers: CropKit's decoder takes them.
            guard let info = try? JPEGFileInfo.read(path: path), info.restartInterval > 0,
                !info.progressive, info.width > 8 * info.blockGrid.width,
                info.height > 8 * info.blockGrid.height
            else { continue }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let (width, height) = (info.width, info.height)
            let (bw, bh) = (info.blockGrid.width, info.blockGrid.height)
            let (cx, cy) = (width / 2 / bw * bw, height / 2 / bh * bh)
            let (rx, ry) = ((width - 1) / bw * bw - 3 * bw, (height - 1) / bh * bh - bh)
            // A small rect in the middle (the rows above skipped, its rows in
            // two bands, its right and bottom edges re-encoded); the
            // bottom-right corner (the scan's end checked).
            let rects = [
                PixelRect<ImagePixels>(x: cx, y: cy, width: 4 * bw + 3, height: 3 * bh + 5),
                PixelRect(x: rx, y: ry, width: width - rx, height: height - ry),
            ]
            var used = false
            for rect in rects {
                let result = try Self.both(bytes, rect)
                #expect(result.own == result.libjpeg, "\(file) \(rect)")
                used = used || result.entropy == .restartMarkers
            }
            // (A Motion JPEG frame with the standard tables and no DHT is
            // left to libjpeg-turbo, which supplies them.)
            if used { decodedOwn.append((file as NSString).lastPathComponent) }
        }
        // The phones' files with restart markers are among them.
        #expect(decodedOwn.contains("iphone6_gps_hdr.jpg"))
        #expect(decodedOwn.count >= 8, "\(decodedOwn)")
        // A file without markers, and a progressive one, stay libjpeg-turbo's.
        for name in ["hdr/pixel6pro_ultrahdr.jpg", "camera/nikon_d300_progressive.jpg"] {
            let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(name)))
            let result = try Self.both(bytes, PixelRect(x: 0, y: 0, width: 64, height: 64))
            #expect(result.entropy == .libjpeg, "\(name)")
            #expect(result.own != nil && result.own == result.libjpeg, "\(name)")
        }
    }

    /// CropKit's Huffman encoder writes every DCT-domain crop of a
    /// sequential file (with restart markers or without, any sampling,
    /// gray, CMYK) byte for byte as libjpeg-turbo's does: the whole image,
    /// its corners, a middle rect whose edges are re-encoded, and one
    /// tall and one wide strip (the two bands split unevenly, or not at
    /// all).
    @Test func ownEncoderWritesWhatLibjpegTurboWrites() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let root = try #require(TestData.root)
        var files: [String] = []
        for name in ["camera", "hdr", "regions", "jpeg", "exif"] {
            files += TestData.files(under: name, extensions: ["jpg", "jpeg"])
        }
        var encoded = 0
        var withoutMarkers = 0
        for file in files {
            let path = root.appendingPathComponent(file).path
            // (A file with a large ICC profile is left to the test above: the
            // leak check reads the profile for every crop, slowly in a
            // debug build.)
            guard let info = try? JPEGFileInfo.read(path: path), !info.progressive,
                info.width >= 2 * info.blockGrid.width, info.height >= 2 * info.blockGrid.height,
                (info.iccProfile?.count ?? 0) < 100_000
            else { continue }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let (width, height) = (info.width, info.height)
            let (bw, bh) = (info.blockGrid.width, info.blockGrid.height)
            let (cx, cy) = (width / 3 / bw * bw, height / 3 / bh * bh)
            // (The photos' larger crops kept to about a megapixel, for time.)
            let (right, bottom) = (
                max(cx, width - 1024 / bw * bw), max(cy, height - 1024 / bh * bh)
            )
            var rects = [
                PixelRect<ImagePixels>(
                    x: right, y: bottom, width: width - right, height: height - bottom),
                PixelRect(
                    x: cx, y: cy, width: min(5 * bw + 3, width - cx),
                    height: min(7 * bh + 1, height - cy)),
                PixelRect(x: 0, y: 0, width: bw, height: min(height, 2048)),
                PixelRect(x: 0, y: height - bh, width: min(width, 2048), height: bh),
            ]
            if width * height <= 1 << 20 {
                rects.append(PixelRect(x: 0, y: 0, width: width, height: height))
            }
            for rect in rects {
                let result = try Self.both(bytes, rect)
                #expect(result.own == result.libjpeg, "\(file) \(rect)")
                if result.encoder == .cropkit {
                    encoded += 1
                    if info.restartInterval == 0 { withoutMarkers += 1 }
                }
            }
        }
        // Dozens of files, most of them without restart markers.
        #expect(encoded >= 200, "\(encoded) crops written by CropKit's encoder")
        #expect(withoutMarkers >= 150, "\(withoutMarkers) of them without restart markers")
        // A progressive output stays libjpeg-turbo's.
        let progressive = [UInt8](
            try Data(contentsOf: root.appendingPathComponent("camera/nikon_d300_progressive.jpg")))
        let result = try Self.both(progressive, PixelRect(x: 0, y: 0, width: 64, height: 64))
        #expect(result.encoder == .libjpeg)
        #expect(result.own != nil && result.own == result.libjpeg)
    }

    /// The crop of `rect` of `bytes` with CropKit's decoder as `control`
    /// says: the output (or `nil` when refused) and the report's entropy.
    static func crop(
        _ bytes: [UInt8], _ rect: PixelRect<ImagePixels>, _ control: JPEGEntropy.Control
    ) -> (bytes: [UInt8]?, entropy: JPEGWriteReport.Entropy?, encoder: JPEGWriteReport.Encoder?) {
        var encoder = JPEGEncoder()
        encoder.entropyControl = control
        do {
            let source = try ImageSource(ImageInput(bytes: bytes, name: "photo"))
            let job = CropJob(region: .pixels(rect), orientation: .up, format: .jpeg(encoder))
            let sink = MemorySink()
            let details = try job.plan(for: source).export(to: sink).details(
                as: JPEGWriteReport.self)
            return (sink.bytes, details?.entropy, details?.encoder)
        } catch {
            return (nil, nil, nil)
        }
    }

    /// Files without restart markers, decoded speculatively with the second
    /// thread starting anywhere from the scan's first bytes to the crop's
    /// last row: every crop is the one libjpeg-turbo makes, whether the two
    /// threads fell into step (most of them) or not.
    @Test func speculationFromAnySplitPointCropsAsLibjpegTurboDoes() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let root = try #require(TestData.root)
        let names = [
            "camera/canon_t3i.jpg", "camera/pixel_gps_tiny.jpg", "camera/flir_one_iphone.jpg",
            "exif/recurser/Landscape_1.jpg", "jpeg/generated/q90_420.jpg",
            "jpeg/generated/q90_411.jpg",
            "jpeg/generated/q90_gray.jpg", "jpeg/generated/q90_rgb_noYCC.jpg",
        ]
        var speculated = 0
        var crops = 0
        for name in names {
            let url = root.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let info = try JPEGFileInfo.read(path: url.path)
            #expect(info.restartInterval == 0, "\(name)")
            let bytes = [UInt8](try Data(contentsOf: url))
            let (width, height) = (info.width, info.height)
            let (bw, bh) = (info.blockGrid.width, info.blockGrid.height)
            let (cx, cy) = (width / 3 / bw * bw, height / 3 / bh * bh)
            let rects = [
                PixelRect<ImagePixels>(x: 0, y: 0, width: width, height: height),
                PixelRect(x: cx, y: cy, width: width - cx, height: min(height - cy, 5 * bh + 3)),
            ]
            for rect in rects {
                let reference = Self.crop(bytes, rect, .libjpeg).bytes
                #expect(reference != nil, "\(name) \(rect)")
                for permille in [1, 97, 250, 450, 613, 888, 999] {
                    let result = Self.crop(bytes, rect, .speculative(permille: permille))
                    #expect(result.bytes == reference, "\(name) \(rect) at \(permille)")
                    #expect(result.entropy == .speculative || result.entropy == .serial, "\(name)")
                    crops += 1
                    if result.entropy == .speculative { speculated += 1 }
                }
            }
        }
        #expect(crops >= 70)
        // Start points fall into step within a few MCUs; on these small
        // photos the first thread often gets there first and decodes on
        // alone (more often while other tests load both cores).
        #expect(speculated >= 8, "\(speculated) of \(crops) crops used the second thread's MCUs")
        // The default, on a photo with enough data above the crop's last row.
        if ProcessInfo.processInfo.activeProcessorCount >= 2 {
            let pixel = [UInt8](
                try Data(contentsOf: root.appendingPathComponent("hdr/pixel6pro_ultrahdr.jpg")))
            let rect = PixelRect<ImagePixels>(x: 1040, y: 784, width: 2000, height: 1504)
            let reference = Self.crop(pixel, rect, .libjpeg).bytes
            // Thread 1 overtakes thread 2 only when thread 2 gets no core for
            // long (the tests load both): three tries, every crop alike.
            var entropies: [JPEGWriteReport.Entropy?] = []
            for _ in 0..<3 where !entropies.contains(.speculative) {
                let result = Self.crop(pixel, rect, .automatic)
                #expect(result.bytes != nil && result.bytes == reference)
                entropies.append(result.entropy)
            }
            #expect(entropies.contains(.speculative), "\(entropies)")
            #expect(entropies.allSatisfy { $0 == .speculative || $0 == .serial }, "\(entropies)")
        }
    }

    /// Seeded damage in scans without restart markers, decoded
    /// speculatively from a seeded start point: the crop is libjpeg-turbo's
    /// or refused as libjpeg-turbo refuses it, never made of the second
    /// thread's MCUs past damage (it starts afresh there, which a serial
    /// decoder would not).
    @Test func damagedScansWithoutMarkersAreRefusedAlike() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let root = try #require(TestData.root)
        let sources = try [
            "camera/canon_t3i.jpg", "exif/recurser/Landscape_1.jpg", "camera/pixel_gps_tiny.jpg",
        ].map {
            let url = root.appendingPathComponent($0)
            return ([UInt8](try Data(contentsOf: url)), try JPEGFileInfo.read(path: url.path))
        }
        var state: UInt64 = 0xDA7A
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var refused = 0
        for round in 0..<48 {
            var (bytes, info) = sources[round % sources.count]
            // The first SOS (the primary image's scan) and its data's end.
            var sos = 2
            while sos + 1 < bytes.count && !(bytes[sos] == 0xFF && bytes[sos + 1] == 0xDA) {
                sos += 1
            }
            let start = sos + 2 + (Int(bytes[sos + 2]) << 8 + Int(bytes[sos + 3]))
            var end = start
            while end + 1 < bytes.count && !(bytes[end] == 0xFF && bytes[end + 1] == 0xD9) {
                end += 1
            }
            for _ in 0...next(3) {
                bytes[start + next(end - start)] =
                    [UInt8(next(256)), 0xFF, 0xD0 + UInt8(next(8)), 0x00][next(4)]
            }
            let rect = PixelRect<ImagePixels>(x: 0, y: 0, width: info.width, height: info.height)
            let reference = Self.crop(bytes, rect, .libjpeg).bytes
            let result = Self.crop(bytes, rect, .speculative(permille: 1 + next(999)))
            #expect(result.bytes == reference, "round \(round)")
            if reference == nil { refused += 1 }
        }
        // Some of the damage is refused (libjpeg-turbo's warnings are errors
        // unless lenient); the rest decodes to other coefficients, alike.
        #expect(refused >= 4, "\(refused) of 48 refused")
    }

    /// Seeded damage in the scans of files with restart markers: no crash,
    /// and a crop CropKit's decoder makes is the one libjpeg-turbo's makes,
    /// unless the damage lies in rows above the crop, which a restart
    /// marker lets it skip (libjpeg-turbo decodes them, and refuses the
    /// file unless lenient).
    @Test func damagedScansAreRefusedOrCroppedAlike() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let sources = try [
            "camera/iphone6_gps_hdr.jpg", "jpeg/generated/q90_420_restart1row.jpg",
            "jpeg/generated/q90_420_restart3blocks.jpg", "jpeg/pillow/pil_sample_cmyk.jpg",
        ].map {
            [UInt8](try Data(contentsOf: try #require(TestData.root).appendingPathComponent($0)))
        }
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var agreed = 0
        var skippedDamage = 0
        for round in 0..<64 {
            var bytes = sources[round % sources.count]
            // The last SOS: the scan's data follows its header.
            var sos = bytes.count - 2
            while sos > 0 && !(bytes[sos] == 0xFF && bytes[sos + 1] == 0xDA) { sos -= 1 }
            let start = sos + 2 + (Int(bytes[sos + 2]) << 8 + Int(bytes[sos + 3]))
            for _ in 0...next(3) {
                let at = start + next(bytes.count - 2 - start)
                bytes[at] = [UInt8(next(256)), 0xFF, 0xD0 + UInt8(next(8)), 0x00][next(4)]
            }
            let result = try Self.both(bytes, PixelRect(x: 16, y: 32, width: 64, height: 48))
            if result.own == result.libjpeg {
                agreed += 1
            } else {
                #expect(result.own != nil && result.libjpeg == nil, "round \(round)")
                skippedDamage += 1
            }
        }
        #expect(agreed >= 48, "\(agreed) of 64 agreed, \(skippedDamage) had damage above the crop")
    }
}
