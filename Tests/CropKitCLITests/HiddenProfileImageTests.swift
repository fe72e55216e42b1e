import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Hostile input, round five, class 1: a colour profile is a container
/// (JPEG APP2, PNG iCCP, WebP ICCP, HEIF and AVIF `colr` of type `prof`),
/// and a "profile" that is a whole photo, or an ICC profile with one in a
/// tag or between its tags, must reach no crop. A profile that parses as
/// ICC and holds no image is kept (the control: the test can fail both
/// ways). Read back by exiftool (the profile's group), by a byte search for
/// the hidden photo's marker, and by the leak check every crop's output
/// goes through (``expectNoLeaks``).
@Suite(.announcesSkips) struct HiddenProfileImageTests {
    /// The hidden photo's own comment: found in an output, the photo is
    /// there.
    static let marker = Array("CROPKIT-HIDDEN-WHOLE-PHOTO".utf8)

    /// The "whole photo": a small JPEG whose comment is ``marker``.
    static func wholePhoto(width: Int = 64, height: Int = 48) -> [UInt8] {
        SyntheticJPEG.inserting(
            [SyntheticJPEG.segment(0xFE, marker)],
            into: SyntheticJPEG.baselineGray(width: width, height: height))
    }

    /// Whether `bytes` holds `pattern` anywhere.
    static func holds(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains {
            bytes[$0] == pattern[0] && bytes[$0..<$0 + pattern.count].elementsEqual(pattern)
        }
    }

    static func be32(_ value: Int) -> [UInt8] {
        [
            UInt8(value >> 24 & 255), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255),
            UInt8(value & 255),
        ]
    }

    /// An ICC v2 profile with a 'desc' of "CropKit test" and a private tag
    /// 'zzzz' holding `blob`; `blobOffset` and `declaredSize` replace the
    /// true ones (a tag or a header that lies), `trailer` follows the last
    /// tag (bytes between or after tags).
    static func icc(
        blob: [UInt8], tagLength: Int? = nil, blobOffset: Int? = nil, declaredSize: Int? = nil
    ) -> [UInt8] {
        let text = Array("CropKit test".utf8) + [0]
        var desc = Array("desc".utf8) + [0, 0, 0, 0] + be32(text.count) + text
        while desc.count % 4 != 0 { desc.append(0) }
        let descOffset = 132 + 2 * 12
        let blobStart = descOffset + desc.count
        var header = [UInt8](repeating: 0, count: 128)
        header[8] = 2
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let table =
            be32(2) + Array("desc".utf8) + be32(descOffset) + be32(desc.count)
            + Array("zzzz".utf8) + be32(blobOffset ?? blobStart) + be32(tagLength ?? blob.count)
        var profile = header + table + desc + blob
        profile.replaceSubrange(0..<4, with: be32(declaredSize ?? profile.count))
        return profile
    }

    /// A hostile profile, what it is, and what the report must say of it.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        /// A phrase of the reason, or `nil` for the profile kept.
        var says: String?
        var description: String { name }
    }

    /// Every case, each exactly as long as the valid profile, so that the
    /// same bytes can be put in place of it in a file another writer made.
    static let cases: [Case] = {
        let whole = wholePhoto()
        let valid = icc(blob: [UInt8](repeating: 0, count: whole.count))
        let length = valid.count
        func padded(_ bytes: [UInt8]) -> [UInt8] {
            Array((bytes + [UInt8](repeating: 0, count: length)).prefix(length))
        }
        let png = try? PNGEncoder().encode(Fixture.make(.coordinates, width: 8, height: 6))
        let pngBlob = Array(
            ((png ?? []) + [UInt8](repeating: 0, count: whole.count)).prefix(whole.count))
        let tiffBlob = Array(
            ([
                0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 1, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 64, 0, 0, 0,
                0,
            ]
                + marker + [UInt8](repeating: 0, count: whole.count))
                .prefix(whole.count))
        return [
            Case(name: "a valid profile", bytes: valid, says: nil),
            Case(
                name: "a whole JPEG", bytes: padded(whole),
                says:
                    "bytes that are not an ICC profile (no 'acsp' signature), holding an embedded JPEG image"
            ),
            Case(
                name: "a JPEG in a private tag", bytes: icc(blob: whole),
                says: "an ICC profile whose tag 'zzzz' holds an embedded JPEG image"),
            Case(
                name: "a PNG in a private tag", bytes: icc(blob: pngBlob),
                says: "an ICC profile whose tag 'zzzz' holds an embedded PNG image"),
            Case(
                name: "a TIFF in a private tag", bytes: icc(blob: tiffBlob),
                says: "an ICC profile whose tag 'zzzz' holds an embedded TIFF image"),
            Case(
                name: "a JPEG between the tags", bytes: icc(blob: whole, tagLength: 0),
                says: "an ICC profile that holds an embedded JPEG image outside its tags"),
            Case(
                name: "a tag outside the profile", bytes: icc(blob: whole, blobOffset: 1 << 20),
                says: "its tag 'zzzz' lies outside it"),
            Case(
                name: "a header that lies", bytes: icc(blob: whole, declaredSize: length + 4),
                says: "its header says \(length + 4) bytes, and it has \(length)"),
        ]
    }()

    /// `source` with its first occurrence of `old` replaced by `new` (of the
    /// same length: no offset in the file moves).
    static func replacing(_ old: [UInt8], with new: [UInt8], in source: [UInt8]) throws -> [UInt8] {
        try #require(old.count == new.count)
        let at = try #require(
            source.indices.dropLast(old.count - 1).first {
                source[$0] == old[0] && source[$0..<$0 + old.count].elementsEqual(old)
            })
        var out = source
        out.replaceSubrange(at..<at + old.count, with: new)
        return out
    }

    /// A PNG made of `png`'s chunks with an iCCP holding `profile` after
    /// IHDR.
    static func withICCP(_ profile: [UInt8], png: [UInt8]) throws -> [UInt8] {
        // zlib of stored deflate blocks: no compressor between the test
        // and the bytes.
        var zlib: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let count = min(65_535, profile.count - at)
            let last: UInt8 = at + count == profile.count ? 1 : 0
            zlib += [
                last, UInt8(count & 255), UInt8(count >> 8), UInt8(~count & 255),
                UInt8(~count >> 8 & 255),
            ]
            zlib += profile[at..<at + count]
            at += count
        } while at < profile.count
        var adler = (a: UInt32(1), b: UInt32(0))
        for byte in profile {
            adler.a = (adler.a + UInt32(byte)) % 65521
            adler.b = (adler.b + adler.a) % 65521
        }
        zlib += be32(Int(adler.b << 16 | adler.a))
        let data = Array("ICC".utf8) + [0, 0] + zlib
        let type = Array("iCCP".utf8)
        let chunk = be32(data.count) + type + data + be32(Int(TestData.crc32(type + data)))
        let ihdrEnd = 8 + 25
        return Array(png[..<ihdrEnd]) + chunk + png[ihdrEnd...]
    }

    /// The sources of one case: a JPEG (APP2), a PNG (iCCP), and the
    /// WebP and AVIF CropKit wrote of the valid profile's JPEG, the
    /// profile's bytes replaced by the case's.
    static func sources(_ item: Case, in folder: URL) throws -> [String] {
        let pixels = try PNGEncoder().encode(Fixture.make(.coordinates, width: 64, height: 48))
        let jpegBase = try plainJPEG(in: folder)
        func app2(_ profile: [UInt8]) -> [UInt8] {
            SyntheticJPEG.inserting(
                [SyntheticJPEG.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + profile)],
                into: jpegBase)
        }
        var paths: [String] = []
        func write(_ bytes: [UInt8], _ name: String) throws {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        try write(app2(item.bytes), "source.jpg")
        try write(try withICCP(item.bytes, png: pixels), "source.png")
        // Another writer's file holding the valid profile, then the case's
        // bytes in its place.
        let valid = cases[0].bytes
        let validJPEG = folder.appendingPathComponent("valid.jpg").path
        try Data(app2(valid)).write(to: URL(fileURLWithPath: validJPEG))
        for format in ["webp"] + (HEIFEncoder.canEncodeTiles ? ["avif"] : []) {
            let made = folder.appendingPathComponent("valid.\(format)").path
            let run = cropkit("crop", validJPEG, "--pixels", "0,0,64,48", "-o", made)
            try #require(run.status == 0, "\(run.err)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: made)))
            try write(try replacing(valid, with: item.bytes, in: bytes), "source.\(format)")
        }
        return paths
    }

    @Test(arguments: cases)
    func aProfileIsCarriedOnlyWhenItIsOne(item: Case) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = ["jpg", "png", "webp"] + (HEIFEncoder.canEncodeTiles ? ["avif"] : [])
        for source in try Self.sources(item, in: folder) {
            let info = cropkit("info", source)
            #expect(info.status == 0, "\(source): \(info.err)")
            let profileLine =
                info.out.split(separator: "\n").first { $0.hasPrefix("profile") } ?? ""
            if let says = item.says {
                #expect(profileLine.contains(says), "\(source): \(profileLine)")
                #expect(profileLine.contains("a crop removes it"), "\(source): \(profileLine)")
            } else {
                #expect(profileLine.contains("CropKit test"), "\(source): \(profileLine)")
            }
            for format in outputs {
                let output = folder.appendingPathComponent("out.\(format)").path
                let run = cropkit("crop", source, "--pixels", "8,8,40,30", "-o", output, "--force")
                try #require(run.status == 0, "\(source) -> \(format): \(run.err)")
                let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
                let carried = Self.holds(written, Self.marker)
                #expect(!carried, "\(item) in \(source) reached its crop to \(format)")
                if let says = item.says {
                    let line = run.out.split(separator: "\n").first {
                        $0.contains("dropped") && $0.contains(says)
                    }
                    #expect(line != nil, "\(item), \(source) -> \(format): \(run.out)")
                }
                guard ExifTool.isInstalled else { continue }
                let tags = try ExifTool.tags(output)
                let description =
                    tags.first { $0.key.hasSuffix(":ProfileDescription") }?.value as? String
                let anyProfile = tags.keys.contains { $0.hasPrefix("ICC_Profile:") }
                if item.says == nil {
                    #expect(
                        description == "CropKit test",
                        "\(source) -> \(format): \(tags.keys.sorted())")
                } else {
                    #expect(!anyProfile, "\(item) \(source) -> \(format): exiftool reads a profile")
                }
            }
        }
    }

    /// `leaks` names the image a profile holds in every format's source.
    @Test func leaksFindsTheImageInAProfile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for source in try Self.sources(Self.cases[2], in: folder) {
            let run = cropkit("leaks", source)
            #expect(run.status != 0 || run.out.contains("finding"), "\(source): \(run.out)")
            #expect(run.out.contains("JPEG image"), "\(source): \(run.out)")
        }
    }

    /// A real iPhone HEIC's `colr` profile replaced by a whole JPEG of the
    /// same length: every crop (HEIC tiles copied, and across formats)
    /// drops it and says what it was.
    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        .enabled(if: HEIFDecoder.libheifVersion != nil, "needs libheif (Debian: libheif1)"))
    func aHEICsProfileThatIsAPhotoIsDropped() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let real = TestData.path("heif/libvips/apple-heic-gainmap.heic")
        let profile = try #require(try ImageSource.open(path: real).metadata().iccProfile)
        let whole = Self.wholePhoto(width: 8, height: 8)
        try #require(whole.count <= profile.count)
        let hostile = whole + [UInt8](repeating: 0, count: profile.count - whole.count)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: real)))
        let path = folder.appendingPathComponent("hostile.heic").path
        try Data(try Self.replacing(profile, with: hostile, in: bytes)).write(
            to: URL(fileURLWithPath: path))
        #expect(cropkit("info", path).out.contains("bytes that are not an ICC profile"))
        for format in ["heic", "jpg", "png"] {
            let output = folder.appendingPathComponent("out.\(format)").path
            let run = cropkit("crop", path, "--pixels", "517,301,640,480", "-o", output, "--force")
            try #require(run.status == 0, "\(format): \(run.err)")
            #expect(
                run.out.contains("dropped colr ICC: bytes that are not an ICC profile"),
                "\(run.out)")
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
            let carried = Self.holds(written, Self.marker)
            #expect(!carried, "the photo in the profile reached its crop to \(format)")
        }
    }
}
