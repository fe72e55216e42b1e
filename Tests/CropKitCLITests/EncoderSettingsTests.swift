import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// An output flag a format does not take is refused naming the formats
/// that take it, from what each registered writer says it takes (the
/// command line once said "for JPEG output" of --quality, which HEIC takes
/// too, and would have made any unknown format a JPEG).
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct EncoderSettingsTests {
    static let heic = TestData.path("heif/pillow-heif/arrow.heic")

    @Test(arguments: [
        (["--compressor", "zlib"], "heic", "--compressor is for PNG output; this output is HEIC"),
        (["--level", "9"], "jpg", "--level is for PNG output; this output is JPEG"),
        (
            ["--keep-makernote"], "png",
            "--keep-makernote is for JPEG, HEIC, WebP or AVIF output; this output is PNG"
        ),
        (
            ["--lossless"], "png",
            "--lossless is for JPEG, HEIC, WebP or AVIF output; this output is PNG"
        ),
    ])
    func aFlagOfAnotherFormatIsRefused(flags: [String], output: String, message: String) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.\(output)").path
        let run = cropkit(["crop", Self.heic, "-o", out, "--pixels", "0,0,64,64"] + flags)
        #expect(run.status == 64)
        #expect(run.err.contains(message), "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func eachFormatTakesItsOwnSettings() throws {
        #expect(OutputFormat.names(accepting: .quality) == ["jpeg", "heic", "webp", "avif"])
        #expect(OutputFormat.names(accepting: .compression) == ["png"])
        var settings = EncoderSettings()
        settings.quality = 70
        settings.lossless = false
        let heic = try #require(OutputFormat(name: "heif", settings: settings))
        #expect(heic.encoder(HEIFEncoder.self)?.quality == 70)
        let jpeg = try #require(OutputFormat(name: "JPG", settings: settings))
        #expect(jpeg.encoder(JPEGEncoder.self)?.quality == 70)
        #expect(OutputFormat(name: "gif", settings: settings) == nil)
        // Dropping a gain map is what every format but JPEG does anyway.
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.heic").path
        #expect(
            cropkit("crop", Self.heic, "-o", out, "--pixels", "0,0,64,64", "--gain-map", "drop")
                .status == 0)
    }
}
