import CropGeometry
import CropImaging
import Testing

/// The library's errors are cases a caller switches on; their sentences are
/// the library's, and name no command-line flag (the command line adds its
/// own advice).
@Suite struct ImagingErrorTests {
    static let examples: [ImagingError] =
        [
            .cannotOpen(path: "a.png", reason: "No such file or directory"),
            .notARegularFile(path: "/dev/null"), .unknownFormat(path: "a.gif"),
            .corrupt(format: .png, detail: "PNG chunk IDAT has a bad CRC"),
            .recoverableCorruption(format: .jpeg, detail: "Premature end of JPEG file"),
            .unsupported(format: .jpeg, detail: "12-bit"), .outOfMemory(detail: "no memory"),
            .memoryExceeded(
                need: MemoryNeed(bytes: 300, parts: ["the decoded crop 300 bytes"]), limit: 200),
            .libraryMissing(library: "libdeflate", package: "libdeflate0"),
            .outputExists(path: "out.png"), .outputIsInput(path: "in.png"),
            .cannotWrite(path: "out.png", reason: "disk full"),
            .cropOutsideImage(
                crop: PixelRect(x: 0, y: 0, width: 9, height: 9),
                size: PixelSize(width: 4, height: 4)),
        ] + ImagingError.Limit.allCases.map { .limitExceeded($0, limit: 100, actual: 200) }

    @Test(arguments: examples)
    func messagesNameNoFlag(error: ImagingError) {
        #expect(!error.description.contains("--"), "\(error.description)")
        #expect(!error.description.isEmpty)
    }

    /// A crop whose byte count overflows is refused as over the pixel limit
    /// before anything is allocated (the JPEG path once lacked the check).
    @Test func cropSizesThatOverflowAreRefused() {
        let limits = DecodeLimits()
        #expect(throws: ImagingError.limitExceeded(.pixels, limit: limits.maxPixels, actual: .max))
        {
            try limits.cropBytes(
                PixelRect(x: 0, y: 0, width: .max / 2, height: 4), bytesPerPixel: 3)
        }
        #expect(
            throws: ImagingError.limitExceeded(
                .pixels, limit: limits.maxPixels, actual: 1 << 28)
        ) {
            try limits.cropBytes(
                PixelRect(x: 0, y: 0, width: 1 << 14, height: 1 << 14), bytesPerPixel: 3)
        }
        #expect(
            (try? limits.cropBytes(
                PixelRect(x: 0, y: 0, width: 100, height: 10), bytesPerPixel: 3)) == 3000)
    }
}
