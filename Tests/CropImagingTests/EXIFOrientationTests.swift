import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// "The portrait photo was cropped in the wrong place": the selection is
/// mapped against the image as seen, the stored rect is cut, and only the
/// crop is turned upright.
@Suite(.announcesSkips) struct EXIFOrientationTests {
    static func request(_ info: JPEGFileInfo, orientation: EXIFOrientation) -> CropRequest {
        CropRequest(
            sourceSize: Size(width: Double(info.width), height: Double(info.height)),
            viewport: Size(width: 300, height: 300),
            selection: Rect(x: 60, y: 80, width: 120, height: 90),
            orientation: orientation)
    }

    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        arguments: EXIFOrientation.allCases)
    func cropEqualsTheSameRegionOfTheUprightPhoto(orientation: EXIFOrientation) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = TestData.path("exif/generated/testorig_orientation\(orientation.rawValue).jpg")
        let info = try JPEGFileInfo.read(path: path)
        #expect(info.orientation == orientation)
        let result = try Self.request(info, orientation: info.orientation).map()
        let output = folder.appendingPathComponent("crop.png").path
        _ = try cropFile(
            input: path, stored: result.stored, orientation: result.orientation,
            output: output)
        let crop = try PNGDecoder.decode(path: output)
        let r = result.rect
        // Pixel for pixel the same region of the full decode turned upright.
        let upright = try JPEGDecoder.decode(path: path).image.oriented(orientation)
        #expect(upright.width == 227 && upright.height == 149)
        #expect(
            crop == upright.cropped(to: PixelRect(x: r.x, y: r.y, width: r.width, height: r.height))
        )
        // Within JPEG error of the stored pixels before compression, turned upright.
        let stored = try PNGDecoder.decode(
            path: TestData.path(
                "exif/generated/testorig_orientation\(orientation.rawValue)_stored.png"))
        let truth = stored.oriented(orientation).cropped(
            to: PixelRect(x: r.x, y: r.y, width: r.width, height: r.height))
        var worst = 0
        for i in 0..<crop.samples.count {
            worst = max(worst, abs(Int(crop.samples[i]) - Int(truth.samples[i])))
        }
        #expect(worst <= 16, "\(orientation): up to \(worst) levels from the stored pixels")
    }

    /// The other sets: every orientation of a photo, turned upright, looks
    /// like its orientation-1 (or untagged) version, within JPEG error.
    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        arguments: ["exif/recurser/Landscape", "exif/recurser/Portrait", "exif/pillow/hopper"])
    func otherSetsAgreeUpright(prefix: String) throws {
        let base =
            prefix.hasSuffix("hopper")
            ? TestData.path(prefix + ".jpg") : TestData.path(prefix + "_1.jpg")
        let reference = try JPEGDecoder.decode(path: base).image
        for n in 2...8 {
            let name =
                prefix.hasSuffix("hopper") ? "\(prefix)_orientation_\(n).jpg" : "\(prefix)_\(n).jpg"
            let path = TestData.path(name)
            let info = try JPEGFileInfo.read(path: path)
            #expect(info.orientation.rawValue == n, "\(name)")
            let upright = try JPEGDecoder.decode(path: path).image.oriented(
                info.orientation)
            guard upright.width == reference.width, upright.height == reference.height else {
                Issue.record(
                    "\(name): upright \(upright.width)x\(upright.height), reference \(reference.width)x\(reference.height)"
                )
                continue
            }
            // Through buffer pointers, without the generic abs: per sample
            // in a debug build these cost the suite seconds.
            var total = 0
            upright.samples.withUnsafeBufferPointer { a in
                reference.samples.withUnsafeBufferPointer { b in
                    for i in 0..<a.count {
                        let d = Int(a[i]) - Int(b[i])
                        total += d < 0 ? -d : d
                    }
                }
            }
            let mean = Double(total) / Double(upright.samples.count)
            #expect(mean < 8, "\(name): mean difference \(mean) from the upright reference")
        }
    }
}

/// An embedded ICC profile goes into the PNG as iCCP, and its description is
/// read for reports.
@Suite(.announcesSkips) struct ICCProfileTests {
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func profileTravelsAsICCP() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = TestData.path("jpeg/pillow/pil_sample_rgb.jpg")
        let info = try JPEGFileInfo.read(path: path)
        let profile = try #require(info.iccProfile)
        #expect(ICCProfile.description(of: profile) == "sRGB IEC61966-2.1")
        let output = folder.appendingPathComponent("out.png").path
        _ = try cropFile(
            input: path, stored: PixelRect(x: 0, y: 0, width: 8, height: 8),
            orientation: .up, output: output)
        let iccp = try #require(
            try PNGFileInfo.read(path: output).carriedChunks.first { $0.type == "iCCP" })
        // Name, NUL, method 0, then the profile as zlib compresses it.
        let name = Array("sRGB IEC61966-2.1".utf8)
        #expect(Array(iccp.data.prefix(name.count + 2)) == name + [0, 0])
        #expect(ICCProfile.profile(fromICCP: iccp) == profile)
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func scanLimitRefusesProgressiveFiles() throws {
        let path = TestData.path("jpeg/generated/q90_420_progressive.jpg")
        #expect(throws: ImagingError.limitExceeded(.scans, limit: 2, actual: 3)) {
            try JPEGDecoder.decode(path: path, limits: DecodeLimits(maxScans: 2))
        }
        #expect(try JPEGDecoder.decode(path: path).image.width == 227)
    }
}

extension EXIFOrientationTests {
    /// An APP1 EXIF segment holding only the orientation tag, as `type`
    /// (3 SHORT, 4 LONG), big-endian.
    static func exifSegment(orientation: Int, type: UInt8) -> [UInt8] {
        var tiff: [UInt8] =
            Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, type, 0, 0, 0, 1]
        tiff += type == 3 ? [0, UInt8(orientation), 0, 0] : [0, 0, 0, UInt8(orientation)]
        tiff += [0, 0, 0, 0]
        let body = Array("Exif\0\0".utf8) + tiff
        return [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    /// The first of two EXIF segments gives the orientation (Pillow and
    /// exiftool agree; CropKit once took the last), with a warning; an
    /// orientation stored as LONG is read.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func theFirstEXIFSegmentCountsAndLongIsRead() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // testorig without any EXIF: SOI, then the rest.
        let plain = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: TestData.path("exif/generated/testorig_orientation1.jpg"))))
        #expect(
            try JPEGFileInfo.read(path: TestData.path("exif/generated/testorig_orientation1.jpg"))
                .orientation == .up)
        let rest = Array(plain[2...])
        let twice =
            [0xFF, 0xD8] + Self.exifSegment(orientation: 6, type: 3)
            + Self.exifSegment(orientation: 3, type: 3) + rest
        let twicePath = folder.appendingPathComponent("twice.jpg").path
        try Data(twice).write(to: URL(fileURLWithPath: twicePath))
        let info = try JPEGFileInfo.read(path: twicePath)
        #expect(info.orientation == .right)
        #expect(info.warnings.contains { $0.contains("second EXIF segment") })
        let long = [0xFF, 0xD8] + Self.exifSegment(orientation: 8, type: 4) + rest
        let longPath = folder.appendingPathComponent("long.jpg").path
        try Data(long).write(to: URL(fileURLWithPath: longPath))
        #expect(try JPEGFileInfo.read(path: longPath).orientation == .left)
    }
}
