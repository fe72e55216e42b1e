import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// Comments and other kept segments are metadata too: one holding a whole
/// JPEG or PNG image (of the photo, say) is not carried, by any JPEG path
/// (the DCT domain, re-encoded, resampled, --strip location, a gain-map
/// crop), and the report says it was dropped.
@Suite(.announcesSkips) struct CommentLeakTests {
    /// A 96x64 photo whose COM holds a whole JPEG, whose APP13 holds a PNG
    /// signature in a caption resource, plus a plain comment that stays.
    static func photo() throws -> [UInt8] {
        let whole = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 48, height: 32), horizontal: [1, 1, 1], vertical: [1, 1, 1])
        var resources = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        let caption = LeakCheck.pngStart + [UInt8](repeating: 7, count: 24)
        resources += [0, 0, 0, UInt8(caption.count)] + caption
        let markers =
            JPEGMetadata.segment(0xFE, Array("a plain comment".utf8))
            + JPEGMetadata.segment(0xFE, Array("preview:".utf8) + whole)
            + JPEGMetadata.segment(0xED, resources)
        return try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 96, height: 64), horizontal: [2, 1, 1], vertical: [2, 1, 1],
            markers: markers)
    }

    @Test(arguments: [
        ("lossless", PixelRect<ImagePixels>(x: 16, y: 16, width: 40, height: 32), MetadataPolicy()),
        ("reencoded", PixelRect<ImagePixels>(x: 3, y: 5, width: 40, height: 32), MetadataPolicy()),
        (
            "strip location", PixelRect<ImagePixels>(x: 3, y: 5, width: 40, height: 32),
            MetadataPolicy(stripLocation: true)
        ),
    ])
    func aCommentHoldingAnImageIsDropped(
        name: String, rect: PixelRect<ImagePixels>, policy: MetadataPolicy
    ) throws {
        let source = try ImageSource(ImageInput(bytes: try Self.photo(), name: "photo"))
        #expect(try LeakCheck.findings(in: source).count == 2)
        for resample in [false, true] {
            var job = CropJob(
                region: .pixels(rect), format: .jpeg(JPEGEncoder(metadata: policy)))
            if resample { job.resampling = CropJob.Resampling(size: .width(20)) }
            let sink = MemorySink()
            let report = try job.plan(for: source).export(to: sink)
            let crop = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop"))
            #expect(try LeakCheck.findings(in: crop).isEmpty, "\(name) resample \(resample)")
            #expect(!LeakCheck.contains(sink.bytes, Array("preview:".utf8)))
            #expect(!LeakCheck.contains(sink.bytes, LeakCheck.pngStart))
            #expect(LeakCheck.contains(sink.bytes, Array("a plain comment".utf8)))
            let entries = report.details(as: JPEGWriteReport.self)?.metadata ?? []
            #expect(
                entries.contains { $0.segment == "COM" && $0.action == .dropped }, "\(entries)")
            #expect(entries.contains { $0.segment == "COM" && $0.action == .kept })
        }
        // As PNG: neither comment nor resources are carried (no place for
        // them), and the crop is clean.
        let png = MemorySink()
        _ = try CropJob(region: .pixels(rect), format: .png(PNGEncoder())).plan(for: source)
            .export(to: png)
        #expect(
            try LeakCheck.findings(in: ImageSource(ImageInput(bytes: png.bytes, name: "png")))
                .isEmpty)
    }
}
