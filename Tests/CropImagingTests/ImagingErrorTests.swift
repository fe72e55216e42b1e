import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The library's errors are cases a caller switches on; their sentences are
/// the library's, and name no command-line flag (the command line adds its
/// own advice).
@Suite(.announcesSkips) struct ImagingErrorTests {
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
            .cannotRead(path: "a.png", reason: "Input/output error"), .emptyFile(path: "a.jpg"),
            .structureLimit(format: .heif, detail: "'iinf' lists 65535 items"),
            .encodeFailed(format: "jpeg", detail: "Bogus message code 999"),
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

    /// An empty file is empty, whatever its name says: no format claims it
    /// (it was reported as corrupt PNG data).
    @Test(arguments: ["empty.png", "empty.jpg", "empty.heic", "empty"])
    func anEmptyFileIsEmptyInTheOpenPhase(name: String) throws {
        let path = try TestData.temporaryFolder().appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: ImagingError.emptyFile(path: path)) { try ImageSource.open(path: path) }
        let error = ImagingError.emptyFile(path: path)
        #expect(error.phase == .open && error.code == .corrupt)
        #expect(!error.description.contains("PNG"))
    }

    /// A read that fails after the file opened is a read error, not "cannot
    /// open". (No file here makes pread(2) fail on demand: /proc and /sys
    /// files that would are empty or refused when opened in this sandbox,
    /// so the case is checked by its sentence and phase.)
    @Test func aFailedReadIsAReadError() {
        let error = ImagingError.cannotRead(path: "x", reason: "Input/output error")
        #expect(error.phase == .read && error.code == .cannotOpen)
        #expect(error.description == "cannot read 'x': Input/output error")
    }

    /// Every case has one phase, and the phases say where a failure arose:
    /// nothing about the output is a read error, nothing about the input an
    /// encode or write error.
    @Test(arguments: examples)
    func eachCaseHasItsPhase(error: ImagingError) {
        switch error {
        case .outputExists, .outputIsInput, .outputNotAFile, .cannotWrite:
            #expect(error.phase == .write)
        case .encodeFailed: #expect(error.phase == .encode)
        case .cannotOpen, .notARegularFile, .unknownFormat, .emptyFile:
            #expect(error.phase == .open)
        default: #expect(error.phase == .read || error.phase == .decode)
        }
    }

    /// A HEIF over a structure limit is over a limit, not corrupt.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func heifStructureLimitsAreLimits() throws {
        for file in [
            "corrupt/heif/17_iloc_tile1_extent_count_0xffff.heic",
            "corrupt/heif/36_iinf_entry_count_0xffff.heic",
        ] {
            do throws(ImagingError) {
                _ = try ImageSource.open(path: TestData.path(file))
                Issue.record("\(file) opened")
            } catch {
                guard case .structureLimit(.heif, _) = error else {
                    Issue.record("\(file): \(error)")
                    continue
                }
                #expect(error.code == .limit && error.phase == .read)
                #expect(error.description.hasSuffix("(a limit against hostile files)"))
            }
        }
    }

    /// libjpeg's memory budget reached while encoding is a memory error,
    /// and any other encoder failure an encode error, never corrupt data.
    @Test func jpegEncoderFailuresAreNotCorruptData() {
        let memory = JPEGEncoder.failure("Backing store not supported")
        guard case .outOfMemory = memory else {
            Issue.record("\(memory)")
            return
        }
        let other = JPEGEncoder.failure("Bogus message code 999")
        #expect(other == .encodeFailed(format: "jpeg", detail: "Bogus message code 999"))
        #expect(other.code == .encode && other.phase == .encode)
    }
}
