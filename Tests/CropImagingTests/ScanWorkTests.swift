import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A progressive JPEG's scan work is summed from its scan headers and
/// bounded before anything is decoded.
@Suite(.announcesSkips) struct ScanWorkTests {
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
        let bytes = SyntheticJPEG.scanBomb(width: 2048, height: 2048, scans: 30)
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
        let bytes = SyntheticJPEG.scanBomb(width: 64, height: 64, scans: 40)
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
