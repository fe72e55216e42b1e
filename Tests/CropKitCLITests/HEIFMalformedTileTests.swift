import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// HEIC files whose tiles or associations are malformed, made by changing
/// bytes of the generated corpus in place: a crop to HEIC refuses them
/// (exit 2, the tile and the problem named) instead of writing a file that
/// nothing can decode, and an item associated twice is refused by every
/// command instead of being read one way while viewers read it another.
@Suite(
    .announcesSkips,
    .enabled(
        if: TestData.isPresent && HEIFDecoder.libheifVersion != nil,
        Comment(rawValue: TestData.absent + ", or libheif is not installed")))
struct HEIFMalformedTileTests {
    static let grid = "heif/generated/coords_orient6_96x128_grid64_lossless.heic"
    static let single = "heif/generated/coords_orient6_96x64_lossless.heic"

    static func bytes(_ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: TestData.path(file))))
    }

    /// Where `pattern` first occurs in `bytes` from `start`.
    static func find(_ pattern: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        let needle = Array(pattern.utf8)
        guard bytes.count >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first {
            bytes[$0..<$0 + needle.count].elementsEqual(needle)
        }
    }

    /// Every `hvcC` box's start (its size field) in `bytes`.
    static func hvcCBoxes(_ bytes: [UInt8]) -> [Int] {
        var out: [Int] = []
        var at = 0
        while let hit = find("hvcC", in: bytes, from: at) {
            out.append(hit - 4)
            at = hit + 4
        }
        return out
    }

    /// Crops `bytes` (written to a file) to HEIC: the run and whether the
    /// output exists.
    static func cropToHEIC(_ bytes: [UInt8], _ name: String) throws -> (Run, Bool) {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent(name + ".heic")
        try Data(bytes).write(to: input)
        let output = folder.appendingPathComponent("out.heic").path
        let run = cropkit("crop", input.path, "-o", output, "--pixels", "0,0,40,40")
        return (run, FileManager.default.fileExists(atPath: output))
    }

    @Test func theUnchangedFilesCrop() throws {
        for file in [Self.grid, Self.single] {
            let (run, written) = try Self.cropToHEIC(try Self.bytes(file), "plain")
            #expect(run.status == 0, "\(file): \(run.err)")
            #expect(written)
        }
    }

    /// A NAL unit of a tile's hvcC said to run past its box.
    @Test func aTruncatedHvcCIsRefused() throws {
        var bytes = try Self.bytes(Self.grid)
        let boxes = Self.hvcCBoxes(bytes)
        #expect(!boxes.isEmpty)
        // The first array's first NAL length: header 8 + 22 + count 1 + 3.
        let length = boxes[0] + 8 + 22 + 1 + 3
        bytes[length] = 0x7F
        bytes[length + 1] = 0xFF
        let (run, written) = try Self.cropToHEIC(bytes, "truncated")
        #expect(run.status == 2, "\(run.err)")
        #expect(run.err.contains("runs past the box"), "\(run.err)")
        #expect(!written)
    }

    /// Tiles whose hvcC header says 4:2:0 while their SPS codes 4:4:4.
    @Test func mixedChromaFormatsAreRefused() throws {
        var bytes = try Self.bytes(Self.grid)
        let boxes = Self.hvcCBoxes(bytes)
        // chromaFormat: the low two bits of configuration byte 16 (the
        // file is 4:4:4: its tiles' one hvcC now says 4:2:0).
        let chroma = boxes[boxes.count - 1] + 8 + 16
        #expect(bytes[chroma] & 3 == 3)
        bytes[chroma] = bytes[chroma] & 0xFC | 1
        let (run, written) = try Self.cropToHEIC(bytes, "mixed")
        #expect(run.status == 2, "\(run.err)")
        #expect(run.err.contains("chroma format"), "\(run.err)")
        #expect(!written)
    }

    /// An image whose ispe says more rows than its tile codes.
    @Test func aTileCodedSmallerThanItsIspeIsRefused() throws {
        var bytes = try Self.bytes(Self.single)
        let ispe = try #require(Self.find("ispe", in: bytes))
        // version/flags 4, width 4, height 4: stored 64x96 becomes 64x104.
        #expect(bytes[ispe + 15] == 96)
        bytes[ispe + 15] = 104
        let (run, written) = try Self.cropToHEIC(bytes, "small")
        #expect(run.status == 2, "\(run.err)")
        #expect(run.err.contains("codes 64x96"), "\(run.err)")
        #expect(!written)
    }

    /// Two `ipma` entries for the grid item (a tile's entry renamed to it):
    /// refused by info, leaks and crop.
    @Test func anItemAssociatedTwiceIsRefused() throws {
        var bytes = try Self.bytes(Self.grid)
        let ipma = try #require(Self.find("ipma", in: bytes))
        let version = bytes[ipma + 4]
        let wide = bytes[ipma + 7] & 1 != 0
        #expect(version == 0)
        var at = ipma + 12
        let firstID = Array(bytes[at..<at + 2])
        at += 2
        let count = Int(bytes[at])
        at += 1 + count * (wide ? 2 : 1)
        bytes[at] = firstID[0]
        bytes[at + 1] = firstID[1]
        try Self.refusedByEveryCommand(bytes, "twice")
    }

    /// Every command on `bytes`: each exits 2 with a message holding `word`.
    static func refusedByEveryCommand(_ bytes: [UInt8], _ word: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("amplified.heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        for arguments in [
            ["info", input], ["leaks", input],
            [
                "crop", input, "-o", folder.appendingPathComponent("o.png").path, "--pixels",
                "0,0,8,8",
            ],
            [
                "crop", input, "-o", folder.appendingPathComponent("o.heic").path, "--pixels",
                "0,0,8,8",
            ],
        ] {
            let run = cropkit(arguments)
            #expect(run.status == 2, "\(arguments): \(run.err)")
            #expect(run.err.contains(word), "\(arguments): \(run.err)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    /// A grid naming one tile twice (the 10,000-times amplification, small).
    @Test func aTileReferencedTwiceIsRefused() throws {
        var bytes = try Self.bytes(Self.grid)
        let dimg = try #require(Self.find("dimg", in: bytes))
        // from (u16), count (u16), then the tile IDs.
        #expect(Int(bytes[dimg + 6]) << 8 | Int(bytes[dimg + 7]) == 4)
        bytes[dimg + 10] = bytes[dimg + 8]
        bytes[dimg + 11] = bytes[dimg + 9]
        try Self.refusedByEveryCommand(bytes, "times")
    }

    /// Two tiles whose iloc extents are one block of bytes (the iloc
    /// amplification, small).
    @Test func overlappingTileDataIsRefused() throws {
        var bytes = try Self.bytes(Self.grid)
        let iloc = try #require(Self.find("iloc", in: bytes))
        let version = Int(bytes[iloc + 4])
        #expect(version < 2, "iloc version 0 or 1")
        let offsetSize = Int(bytes[iloc + 8] >> 4)
        let lengthSize = Int(bytes[iloc + 8] & 15)
        let baseSize = Int(bytes[iloc + 9] >> 4)
        let indexSize = version == 1 ? Int(bytes[iloc + 9] & 15) : 0
        let count = Int(bytes[iloc + 10]) << 8 | Int(bytes[iloc + 11])
        func number(_ at: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
        }
        // Each entry's one extent: where its offset field is, and its length.
        var extents: [(field: Int, length: Int)] = []
        var at = iloc + 12
        for _ in 0..<count {
            at += 4 + (version == 1 ? 2 : 0) + baseSize
            let extentCount = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            at += 2
            #expect(extentCount == 1)
            extents.append((at + indexSize, number(at + indexSize + offsetSize, lengthSize)))
            at += (indexSize + offsetSize + lengthSize) * extentCount
        }
        let tiles = extents.sorted { $0.length > $1.length }.prefix(2)
        let (from, to) = (tiles[tiles.startIndex], tiles[tiles.startIndex + 1])
        for k in 0..<(offsetSize + lengthSize) { bytes[to.field + k] = bytes[from.field + k] }
        try Self.refusedByEveryCommand(bytes, "overlap")
    }
}
