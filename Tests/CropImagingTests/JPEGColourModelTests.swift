import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// Every colour model libjpeg-turbo reads (gray, YCbCr, RGB with Adobe
/// transform 0, CMYK, YCCK), cropped every way a JPEG crop is made (in the
/// DCT domain, re-encoded, resampled, with its gain map): the output decodes
/// to the colours of the source's own rect. A re-encoded crop is YCbCr (or
/// gray), so an Adobe segment saying otherwise would make every decoder
/// show wrong colours (46 levels off on average, as found).
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct JPEGColourModelTests {
    static let files = [
        ("jpeg/generated/q90_gray.jpg", "gray"), ("jpeg/generated/q90_420.jpg", "ycbcr"),
        ("jpeg/generated/q90_rgb_noYCC.jpg", "rgb"), ("jpeg/pillow/pil_sample_cmyk.jpg", "ycck"),
        ("jpeg/jpeg-decoder-reftest/mozilla/jpg-cmyk-1.jpg", "cmyk"),
        ("jpeg/jpeg-decoder-reftest/mozilla/jpg-cmyk-2.jpg", "cmyk"),
    ]

    /// The mean absolute difference of two sample arrays of one layout.
    static func meanError(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var sum = 0
        for i in a.indices { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(a.count)
    }

    /// The Adobe transform a JPEG's bytes say, if they hold the segment.
    static func adobeTransform(_ bytes: [UInt8]) throws -> (Int?, Int) {
        let source = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        guard let info = source.header as? JPEGFileInfo else { throw CocoaError(.fileReadUnknown) }
        return (info.adobeTransform, info.components)
    }

    @Test(arguments: files)
    func cropsKeepTheColours(file: String, model: String) throws {
        let source = try ImageSource.open(path: TestData.path(file))
        guard let info = source.header as? JPEGFileInfo else { throw CocoaError(.fileReadUnknown) }
        #expect(info.colorSpace == model)
        let size = source.storedSize
        // Off the block grid (re-encoded) and on it (the DCT domain).
        for rect in [
            PixelRect<StoredPixels>(x: 3, y: 5, width: size.width / 2, height: size.height / 2),
            PixelRect<StoredPixels>(x: 16, y: 16, width: size.width / 2, height: size.height / 2),
        ] {
            let expected = try source.decode(rect).image.samples
            let plan = try CropJob(
                region: .pixels(
                    PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)),
                orientation: .up, format: .jpeg(JPEGEncoder())
            ).plan(for: source)
            let sink = MemorySink()
            let report = try plan.export(to: sink)
            let crop = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop"))
            let got = try crop.decode().image.samples
            let error = Self.meanError(got, expected)
            #expect(
                error < 3,
                "\(file) \(rect) (\(report.details(as: JPEGWriteReport.self)?.method.rawValue ?? "")): mean error \(error)"
            )
            // And Pillow, an independent decoder, shows the crop in the
            // colours it shows the source's rect in (within 2 levels here;
            // a wrong Adobe transform was 46 off).
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: TestData.path(file))))
            if let seen = try Pillow.rgb(sink.bytes),
                let source = try Pillow.rgb(
                    original, rect: (rect.x, rect.y, rect.width, rect.height))
            {
                let error = Self.meanError(seen.samples, source.samples)
                #expect(
                    error < 3,
                    "\(file) \(rect) (\(report.details(as: JPEGWriteReport.self)?.method.rawValue ?? "")): Pillow's mean error \(error)"
                )
            }
            let (transform, components) = try Self.adobeTransform(sink.bytes)
            if report.details(as: JPEGWriteReport.self)?.method == .reencoded {
                #expect(components == (model == "gray" ? 1 : 3))
                if let transform { #expect(transform == (components == 3 ? 1 : 0), "\(file)") }
            } else {
                #expect(transform == info.adobeTransform, "\(file): the DCT-domain crop keeps it")
            }
        }
        // Resampled: the JPEG decodes to the pixels the same job writes
        // as PNG (the same render, with no colour transform to get wrong).
        let rect = PixelRect<ImagePixels>(
            x: 3, y: 5, width: size.width / 2, height: size.height / 2)
        var outputs: [[UInt8]] = []
        for format in [OutputFormat.jpeg(JPEGEncoder()), .png(PNGEncoder())] {
            var job = CropJob(region: .pixels(rect), orientation: .up, format: format)
            job.resampling = CropJob.Resampling(size: .width(rect.width / 2))
            let sink = MemorySink()
            _ = try job.plan(for: source).export(to: sink)
            outputs.append(sink.bytes)
            let image = try ImageSource(ImageInput(bytes: sink.bytes, name: "small")).decode().image
            outputs.append(image.samples)
        }
        // (A resampled JPEG is 4:2:0 at quality 92: saturated detail costs a
        // few levels; a wrong colour transform costs tens.)
        let error = Self.meanError(outputs[1], outputs[3])
        #expect(error < 10, "\(file) resampled: mean error \(error)")
        if let transform = try Self.adobeTransform(outputs[0]).0 {
            #expect(transform == (model == "gray" ? 0 : 1))
        }
    }

    /// An RGB gain map (Adobe transform 0) cropped with its photo
    /// (`cropsGainMap`) decodes to the colours of the gain map's own rect.
    @Test func anRGBGainMapKeepsItsColours() throws {
        // The corpus's RGB JPEG, marked as Apple's gain map.
        let apple = Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description apdi:AuxiliaryImageType=\"urn:com:apple:photo:2020:aux:hdrgainmap\"/></x:xmpmeta>"
                .utf8)
        let rgb = Array(
            try Data(
                contentsOf: URL(fileURLWithPath: TestData.path("jpeg/generated/q90_rgb_noYCC.jpg")))
        )
        let gainMap = Array(rgb[0..<2]) + JPEGMetadata.segment(0xE1, apple) + Array(rgb[2...])
        let map = try ImageSource(ImageInput(bytes: gainMap, name: "map"))
        let mapSize = map.storedSize
        var primary = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: mapSize.width * 2, height: mapSize.height * 2),
            horizontal: [2, 1, 1], vertical: [2, 1, 1],
            markers: MPFIndex.segment(secondAttribute: 0))
        #expect(MPFIndex.patch(&primary, secondSize: gainMap.count))
        let photo = try ImageSource(ImageInput(bytes: primary + gainMap, name: "hdr"))
        let rect = PixelRect<ImagePixels>(x: 42, y: 26, width: 200, height: 120)
        let plan = try CropJob(
            region: .pixels(rect),
            format: .jpeg(JPEGEncoder(metadata: MetadataPolicy(companions: .keep)))
        ).plan(for: photo)
        let sink = MemorySink()
        _ = try plan.export(to: sink)
        let crop = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop"))
        guard let cropInfo = crop.header as? JPEGFileInfo else {
            throw CocoaError(.fileReadUnknown)
        }
        let cropped = try #require(try GainMap.find(cropInfo, input: crop.input))
        let croppedMap = try ImageSource(ImageInput(bytes: cropped.bytes, name: "cropped map"))
        // 42,26,200,120 of the doubled photo is 21,13,100,60 of the map.
        #expect(croppedMap.storedSize == PixelSize(width: 100, height: 60))
        let expected = try map.decode(PixelRect(x: 21, y: 13, width: 100, height: 60)).image.samples
        let error = Self.meanError(try croppedMap.decode().image.samples, expected)
        #expect(error < 3, "the gain map's mean error \(error)")
        #expect(try LeakCheck.findings(in: crop).isEmpty)
    }
}
