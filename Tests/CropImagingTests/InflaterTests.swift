import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The ISA-L inflater with CropKit's own unfiltering against libpng: the
/// same pixels for every file libpng decodes, whole and cropped, and the
/// same verdict on every corrupt file.
@Suite(.announcesSkips, .enabled(if: Inflater.isISALAvailable, "needs ISA-L (Debian: libisal2)"))
struct InflaterTests {
    /// Decodes `path` with `inflater`, whole or `rect`.
    static func decode(_ path: String, _ rect: PixelRect<StoredPixels>?, _ inflater: Inflater)
        -> Result<RasterImage, ImagingError>
    {
        Result { () throws(ImagingError) in
            try PNGDecoder.decode(path: path, rect: rect, inflater: inflater)
        }
    }

    /// "libpng: decoded, ISA-L: MESSAGE", without the pixels.
    static func verdicts(
        _ libpng: Result<RasterImage, ImagingError>, _ isal: Result<RasterImage, ImagingError>
    ) -> String {
        func say(_ outcome: Result<RasterImage, ImagingError>) -> String {
            switch outcome {
            case .success: "decoded"
            case .failure(let error): "\(error)"
            }
        }
        return "libpng: \(say(libpng)), ISA-L: \(say(isal))"
    }

    /// Images of every colour type and 8 or 16 bits, with every filter
    /// type (the encoder picks one a row), at widths that leave partial
    /// pixels at no edge and at some: ISA-L's decode equals libpng's.
    @Test(arguments: [
        (ColorType.gray, 8), (.gray, 16), (.rgb, 8), (.rgb, 16), (.palette, 8),
        (.grayAlpha, 8), (.grayAlpha, 16), (.rgba, 8), (.rgba, 16),
    ])
    func generatedImagesDecodeTheSame(type: ColorType, depth: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (width, height) in [(1, 1), (37, 23), (300, 200)] {
            let image = FormatRoundTripTests.randomImage(
                type, depth, width: width, height: height, seed: UInt64(width * 31 + depth))
            let path = folder.appendingPathComponent("\(width).png").path
            try Data(PNGEncoder(compressor: .zlib).encode(image)).write(
                to: URL(fileURLWithPath: path))
            #expect(try Self.decode(path, nil, .isal).get() == image, "\(type) \(depth) \(width)")
            let rect = PixelRect<StoredPixels>(
                x: width / 3, y: height / 2, width: max(1, width / 3), height: max(1, height / 2))
            #expect(
                try Self.decode(path, rect, .isal).get() == image.cropped(to: rect),
                "\(type) \(depth) \(width) cropped")
        }
    }

    /// PngSuite and libpng's own sets: every file, whole and its bottom
    /// half, decodes to the same pixels or is refused by both.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func conformanceFilesDecodeTheSame() throws {
        var compared = 0
        for file in TestData.files(under: "pngsuite") {
            let path = TestData.path(file)
            guard let info = try? PNGFileInfo.read(path: path) else { continue }
            let bottom = PixelRect<StoredPixels>(
                x: 0, y: info.height / 2, width: info.width, height: info.height - info.height / 2)
            for rect in [nil, bottom] {
                let libpng = Self.decode(path, rect, .zlib)
                let isal = Self.decode(path, rect, .isal)
                switch (libpng, isal) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(file)")
                    compared += 1
                case (.failure, .failure): break
                default: Issue.record("\(file): \(Self.verdicts(libpng, isal))")
                }
            }
        }
        #expect(compared > 300)
    }

    /// Every corrupt PNG of the corpus: decoded by both (to the same pixels)
    /// or refused by both, as corrupt.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func corruptFilesGetTheSameVerdict() throws {
        var refused = 0
        for file in TestData.files(under: "corrupt", extensions: ["png"]) {
            let path = TestData.path(file)
            let libpng = Self.decode(path, nil, .zlib)
            let isal = Self.decode(path, nil, .isal)
            switch (libpng, isal) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(file)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code, "\(file): libpng \(a), ISA-L \(b)")
                refused += 1
            default: Issue.record("\(file): \(Self.verdicts(libpng, isal))")
            }
        }
        #expect(refused > 50)
    }
}
