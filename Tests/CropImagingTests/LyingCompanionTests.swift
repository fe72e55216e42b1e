import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// Companions that lie: a gain map the MPF index names that cannot be
/// read, claims more pixels than a photo may have, has its scan cut short
/// before the rows the crop needs, or is not at its photo's aspect ratio. Each crop goes on without it (exit
/// 0 from the command line), says why in a warning, carries no MPF index
/// and nothing of the map, and never crashes.
@Suite struct LyingCompanionTests {
    /// The gain map's own XMP, which makes the MPF image a gain map.
    static let description = JPEGMetadata.segment(
        0xE1,
        Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" hdrgm:Version=\"1.0\"/></x:xmpmeta>"
                .utf8))

    /// A 320x240 photo with `map` (a JPEG file, or what claims to be one)
    /// after it, indexed by MPF.
    static func photo(withMap map: [UInt8]) throws -> ImageSource {
        var primary = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 320, height: 240), horizontal: [2, 1, 1],
            vertical: [2, 1, 1], markers: MPFIndex.segment(secondAttribute: 0))
        #expect(MPFIndex.patch(&primary, secondSize: map.count))
        return try ImageSource(ImageInput(bytes: primary + map, name: "hdr"))
    }

    static func gray(_ width: Int, _ height: Int) -> RasterImage {
        RasterImage(
            width: width, height: height, colorType: .gray, bitDepth: 8,
            samples: (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 % 251) })
    }

    static var lies: [(String, [UInt8], String)] {
        get throws {
            let good = try JPEGEncoder.encoded(
                gray(80, 60), horizontal: [1], vertical: [1], markers: description)
            // SOF0 of the good map, its sides set to 60000x60000.
            var huge = good
            if let sof = (0..<huge.count - 9).first(where: {
                huge[$0] == 0xFF && huge[$0 + 1] == 0xC0
            }) {
                huge[sof + 5] = 0xEA
                huge[sof + 6] = 0x60
                huge[sof + 7] = 0xEA
                huge[sof + 8] = 0x60
            }
            let garbage = [0xFF, 0xD8] + description + [UInt8](repeating: 0x42, count: 64)
            let truncated = Array(good.prefix(good.count / 3))
            let offAspect = try JPEGEncoder.encoded(
                gray(80, 64), horizontal: [1], vertical: [1], markers: description)
            return [
                ("no frame", garbage, "cannot be read"),
                ("60000x60000", huge, "cannot be"),
                ("a truncated scan", truncated, "cannot be"),
                ("5 % off the aspect", offAspect, "is not aligned"),
            ]
        }
    }

    @Test func eachLyingGainMapIsDroppedAndSaysWhy() throws {
        for (name, map, says) in try Self.lies {
            let photo = try Self.photo(withMap: map)
            // The lower right: a truncated map lacks the rows it needs.
            let plan = try CropJob(
                region: .pixels(PixelRect(x: 190, y: 150, width: 101, height: 77)),
                format: .jpeg(JPEGEncoder())
            ).plan(for: photo)
            let sink = MemorySink()
            let report = try plan.export(to: sink)
            #expect(
                report.warnings.contains { $0.contains(says) && $0.contains("dropped") },
                "\(name): \(report.warnings)")
            let crop = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop"))
            #expect(try LeakCheck.findings(in: crop).isEmpty, "\(name)")
            #expect(!LeakCheck.contains(sink.bytes, Array("MPF\0".utf8)), "\(name)")
            #expect(crop.storedSize == PixelSize(width: 101, height: 77))
        }
        // And a good one is kept, as a control.
        let kept = try Self.photo(
            withMap: try JPEGEncoder.encoded(
                Self.gray(80, 60), horizontal: [1], vertical: [1], markers: Self.description))
        let sink = MemorySink()
        _ = try CropJob(
            region: .pixels(PixelRect(x: 33, y: 17, width: 101, height: 77)),
            format: .jpeg(JPEGEncoder())
        ).plan(for: kept).export(to: sink)
        #expect(LeakCheck.contains(sink.bytes, Array("MPF\0".utf8)))
    }
}

extension LyingCompanionTests {
    /// An MPF index of the primary and `entries` (size, offset), big-endian,
    /// as a segment body whose body starts at byte 20 of its file.
    static func index(_ entries: [(Int, Int)]) -> MPFIndex? {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16 & 0xFFFF) + u16(v & 0xFFFF) }
        let all = [(1000, 0)] + entries
        var tiff: [UInt8] = [0x4D, 0x4D] + u16(42) + u32(8) + u16(1)
        tiff += u16(0xB002) + u16(7) + u32(16 * all.count) + u32(26) + u32(0)
        for (size, offset) in all { tiff += u32(0) + u32(size) + u32(offset) + u16(0) + u16(0) }
        return MPFIndex(body: Array("MPF\0".utf8) + tiff, bodyOffset: 20)
    }

    /// Round five: an MPF index whose entries point into the primary image,
    /// past the end of the file or over each other is named for each lie
    /// (the primary ends at byte 1000 of a 5000-byte file; offsets count
    /// from byte 24).
    @Test func anMPFIndexThatLiesIsNamedForEachLie() throws {
        let lies = { (entries: [(Int, Int)]) in
            Self.index(entries)?.lies(primaryEnd: 1000, fileSize: 5000) ?? ["unreadable"]
        }
        #expect(lies([(1000, 1500)]).isEmpty)
        #expect(lies([(100, 500)]) == ["its entry 2 points into the primary image's own bytes"])
        #expect(lies([(100, 0)]) == ["its entry 2 points into the primary image's own bytes"])
        #expect(lies([(4000, 1500)]) == ["its entry 2 runs past the end of the file"])
        #expect(lies([(1000, 1500), (1000, 2000)]) == ["its entries 2 and 3 overlap"])
        #expect(lies([(500, 1500), (500, 2000)]).isEmpty)
    }
}
