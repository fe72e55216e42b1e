import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A progressive JPEG's scan work is summed from its scan headers and
/// bounded before anything is decoded.
@Suite struct ScanWorkTests {
    /// A valid progressive gray JPEG of `width`×`height` with `scans` scans
    /// that code nothing but zeros (one bit a block for DC, end-of-band runs
    /// of 32767 blocks for AC): the first scans of a spectral-selection and
    /// successive-approximation script that visits every block per scan,
    /// as a scan bomb does.
    static func scanBomb(width: Int, height: Int, scans: Int) -> [UInt8] {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        func packed(_ bits: [Bool]) -> [UInt8] {
            var out: [UInt8] = []
            for start in stride(from: 0, to: bits.count, by: 8) {
                var byte: UInt8 = 0
                for i in 0..<8 {
                    byte = byte << 1 | (start + i < bits.count ? (bits[start + i] ? 1 : 0) : 1)
                }
                out.append(byte)
                if byte == 0xFF { out.append(0) }
            }
            return out
        }
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var file: [UInt8] = [0xFF, 0xD8] + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        file += segment(
            0xC2,
            [
                8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                1, 1, 0x11, 0,
            ])
        let oneCode = [UInt8(1)] + [UInt8](repeating: 0, count: 15)
        file += segment(0xC4, [0x00] + oneCode + [0x00])  // DC: "0" is category 0
        file += segment(0xC4, [0x10] + oneCode + [0xE0])  // AC: "0" is EOB14
        let dc = [UInt8](repeating: 0, count: (blocks + 7) / 8)
        let runs = (blocks + 32766) / 32767
        let ac = packed((0..<runs).flatMap { _ in [false] + [Bool](repeating: true, count: 14) })
        var script: [(UInt8, UInt8, UInt8, UInt8)] = [(0, 0, 0, 0)]
        for band in UInt8(1)...63 {
            for low in stride(from: UInt8(13), through: 0, by: -1) {
                script.append((band, band, low == 13 ? 0 : low + 1, low))
            }
        }
        for (start, end, high, low) in script.prefix(scans) {
            file += segment(0xDA, [1, 1, 0x00, start, end, high << 4 | low])
            file += start == 0 ? dc : ac
        }
        return file + [0xFF, 0xD9]
    }

    /// An encoder's progressive files visit each block 3 to 6 times.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func encoderFilesStayFarUnderTheLimit() throws {
        var measured = 0
        for file in TestData.files(under: "jpeg", extensions: ["jpg"])
            + TestData.files(under: "camera", extensions: ["jpg"])
        {
            guard file.hasSuffix(".jpg"),
                let info = try? JPEGFileInfo.read(path: TestData.path(file)),
                let work = info.scanWork, work.scans > 2
            else { continue }
            #expect(work.passes >= 3 && work.passes <= 6.01, "\(file): \(work)")
            #expect(Double(DecodeLimits.standard.maxScanPasses) > 3 * work.passes)
            measured += 1
        }
        #expect(measured >= 8)
    }

    /// 30 valid scans over every block of a 2048×2048 frame (a 9 KB file):
    /// refused from the headers, naming the limit; within a raised limit
    /// the same file decodes.
    @Test func aScanBombIsRefusedBeforeDecoding() throws {
        let bytes = Self.scanBomb(width: 2048, height: 2048, scans: 30)
        let info = try JPEGFileInfo.read(
            ImageInput(bytes: bytes), limits: DecodeLimits(maxScanPasses: 100))
        let work = try #require(info.scanWork)
        #expect(work.scans == 30 && work.blockVisits == 30 * 65536 && work.frameBlocks == 65536)
        #expect {
            try ImageSource(ImageInput(bytes: bytes)).decode(
                PixelRect(x: 0, y: 0, width: 1, height: 1))
        } throws: { error in
            guard case ImagingError.limitExceeded(.scanPasses, limit: 20, actual: 21) = error else {
                return false
            }
            return true
        }
        let raised = try ImageSource(
            ImageInput(bytes: bytes), limits: DecodeLimits(maxScanPasses: 30))
        let decoded = try raised.decode(PixelRect(x: 0, y: 0, width: 2, height: 2))
        #expect(decoded.image.samples == [128, 128, 128, 128])
    }

    /// Past --max-scans the count alone refuses, from the headers too.
    @Test func tooManyScansAreRefusedFromTheHeaders() throws {
        let bytes = Self.scanBomb(width: 64, height: 64, scans: 40)
        #expect {
            try JPEGFileInfo.read(
                ImageInput(bytes: bytes), limits: DecodeLimits(maxScans: 39, maxScanPasses: 100))
        } throws: { error in
            guard case ImagingError.limitExceeded(.scans, limit: 39, actual: 40) = error else {
                return false
            }
            return true
        }
    }
}
