import CropImaging
import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

/// The fourth round of hostile testing: what a report or `info` says must
/// be what the file holds, read from it, and text from a file never
/// reaches a terminal as control characters.
@Suite(.announcesSkips) struct HostileRoundFourTests {
    /// An extended XMP segment (GUID, full length, offset 0) holding `xmp`.
    static func extendedXMP(_ xmp: String, guid: String = String(repeating: "A", count: 32))
        -> [UInt8]
    {
        let data = Array(xmp.utf8)
        let length = UInt32(data.count)
        let header =
            Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array(guid.utf8)
            + [
                UInt8(length >> 24), UInt8(length >> 16 & 255), UInt8(length >> 8 & 255),
                UInt8(length & 255),
            ]
            + [0, 0, 0, 0]
        return SyntheticJPEG.segment(0xE1, header + data)
    }

    /// A v2 ICC profile whose only tag is a 'desc' of `name`.
    static func iccProfile(named name: String) -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] {
            [
                UInt8(value >> 24 & 255), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255),
                UInt8(value & 255),
            ]
        }
        let text = Array(name.utf8) + [0]
        let desc = Array("desc".utf8) + [0, 0, 0, 0] + u32(text.count) + text
        var header = [UInt8](repeating: 0, count: 128)
        header[8] = 2  // version 2
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let table = u32(1) + Array("desc".utf8) + u32(128 + 4 + 12) + u32(desc.count)
        var profile = header + table + desc
        profile.replaceSubrange(0..<4, with: u32(profile.count))
        return profile
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Found: a Pixel's extended XMP holds its HDR+ maker note, and the
    /// report said it held depth maps and images. The reason now says what
    /// the segment holds, read from it; unknown properties by name; and
    /// "could not be read" when nothing in it can be.
    @Test func anExtendedXMPReasonNamesWhatItHolds() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let xmp = { (body: String) in
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" \(body)/></rdf:RDF></x:xmpmeta>"
        }
        let cases: [(segment: [UInt8], says: String, never: String)] = [
            (
                Self.extendedXMP(
                    xmp(
                        "xmlns:GCamera=\"http://ns.google.com/photos/1.0/camera/\" GCamera:HdrPlusMakernote=\"AAAA\""
                    )),
                "it holds GCamera:HdrPlusMakernote (Google's HDR+ maker note)", "depth"
            ),
            (
                Self.extendedXMP(xmp("xmlns:Acme=\"http://acme/\" Acme:Secret=\"QUJD\"")),
                "it holds Acme:Secret, which a crop does not carry", "depth"
            ),
            (
                Self.extendedXMP(String(repeating: "QUJD", count: 50)),
                "what it holds could not be read", "depth"
            ),
        ]
        for (index, item) in cases.enumerated() {
            let jpeg = SyntheticJPEG.inserting(
                [item.segment], into: SyntheticJPEG.baselineGray(width: 64, height: 48))
            let input = try Self.write(jpeg, "x\(index).jpg", in: folder)
            let output = folder.appendingPathComponent("out\(index).jpg").path
            let run = cropkit("crop", input, "--pixels", "0,0,16,16", "-o", output)
            #expect(run.status == 0, "\(run.err)")
            let line = run.out.split(separator: "\n").first { $0.contains("extended XMP") } ?? ""
            #expect(line.contains(item.says), "\(line)")
            #expect(!line.contains(item.never), "\(line)")
            let leaks = cropkit("leaks", input)
            #expect(
                leaks.out.contains(item.says.components(separatedBy: ", which")[0]), "\(leaks.out)")
        }
    }

    /// The real Pixel 6 Pro file: its extended XMP is named as the maker
    /// note it is, and the Google depth photo's as its depth map and image.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func theRealFilesExtendedXMPIsNamedForWhatItHolds() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pixel = cropkit(
            "crop", TestData.path("hdr/pixel6pro_ultrahdr.jpg"), "--pixels", "0,0,64,64", "-o",
            folder.appendingPathComponent("p.jpg").path)
        #expect(
            pixel.out.contains(
                "dropped APP1 extended XMP: it holds GCamera:HdrPlusMakernote (Google's HDR+ maker note)"
            ), "\(pixel.out)")
        let pixelLine = pixel.out.split(separator: "\n").first { $0.contains("extended XMP") } ?? ""
        #expect(!pixelLine.contains("depth"), "\(pixelLine)")
        // With companions dropped (kept, the depth map is cut and written
        // anew: GoogleDepthTests).
        let depth = cropkit(
            "crop", TestData.path("camera/android_depthmap_xmp.jpg"), "--pixels", "0,0,64,64",
            "-o", folder.appendingPathComponent("d.jpg").path, "--companions", "drop")
        let lines = depth.out.split(separator: "\n").filter { $0.contains("extended XMP") }
        #expect(!lines.isEmpty)
        #expect(
            lines.allSatisfy {
                $0.contains("GDepth:Data (a depth map of the whole photo)")
                    && $0.contains("GImage:Data (an image of the whole photo)")
            })
    }

    /// Found: `info` printed the ICC description's NUL terminator. The
    /// description is read up to its NUL, and any control character a file
    /// holds is escaped (`\0`, `\x1b`) in text output; JSON keeps the value
    /// escaped its own way.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func infoPrintsTheRealProfileNameWithoutItsNul() throws {
        let run = cropkit("info", TestData.path("hdr/pixel6pro_ultrahdr.jpg"))
        #expect(run.out.contains("profile      Display P3\n"), "\(run.out)")
        #expect(!run.out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func controlCharactersFromAFileAreEscaped() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = Self.iccProfile(named: "Evil\u{1B}[2J\rname\u{7}")
        let segment = SyntheticJPEG.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + profile)
        let jpeg = SyntheticJPEG.inserting(
            [segment], into: SyntheticJPEG.baselineGray(width: 32, height: 32))
        let input = try Self.write(jpeg, "evil.jpg", in: folder)
        let run = cropkit("info", input)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("profile      Evil\\x1b[2J\\rname\\x07\n"), "\(run.out)")
        #expect(!run.out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let json = cropkit("info", input, "--json")
        #expect(json.out.contains(#""profile":"Evil\u001b[2J\rname\u0007""#), "\(json.out)")
        // A path with control characters, in an error message.
        let missing = cropkit("info", folder.appendingPathComponent("no\u{1B}[31mfile\n.jpg").path)
        #expect(missing.status != 0)
        #expect(missing.err.contains("no\\x1b[31mfile"), "\(missing.err)")
        #expect(!missing.err.dropLast().contains("\u{1B}"))
    }
}
