import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// What a JPEG crop keeps of its source's metadata, and what it never
/// carries: checked on real camera and phone files (thumbnails, GPS, maker
/// notes, MPF gain maps, trailing bytes) and on a file made to hold every
/// kind of leak at once.
@Suite(.announcesSkips) struct JPEGMetadataTests {
    /// The EXIF of a JPEG's first APP1 EXIF segment, read back.
    static func exif(_ bytes: [UInt8]) throws -> EXIFRewriter? {
        let source = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        guard let info = source.header as? JPEGFileInfo else { return nil }
        for segment in info.segments where segment.marker == 0xE1 {
            let body = Array(bytes[segment.bodyOffset..<segment.bodyOffset + segment.bodyLength])
            if body.starts(with: JPEGMetadata.exifSignature) {
                return EXIFRewriter(tiff: Array(body[6...]))
            }
        }
        return nil
    }

    static func cropJPEG(
        _ source: ImageSource, _ rect: PixelRect<ImagePixels>,
        policy: MetadataPolicy = MetadataPolicy()
    ) throws -> (CropReport, [UInt8]) {
        let plan = try CropJob(region: .pixels(rect), format: .jpeg(JPEGEncoder(metadata: policy)))
            .plan(for: source)
        let sink = MemorySink()
        return (try plan.export(to: sink), sink.bytes)
    }

    /// Every real camera and phone file: its crop holds nothing of the whole
    /// photo, keeps its orientation and GPS, and drops GPS when asked.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func cameraFilesCropClean() throws {
        let files = TestData.files(under: "camera", extensions: ["jpg", "mpo"])
        #expect(files.count >= 20)
        var appleMakerNotes = 0
        for relative in files {
            let path = TestData.path(relative)
            let source = try ImageSource.open(path: path)
            let name = URL(fileURLWithPath: path).lastPathComponent
            #expect(
                !(try LeakCheck.findings(in: source)).isEmpty,
                "\(name): the original shows no leak to remove")
            let seen = source.orientation.orientedSize(source.storedSize)
            let rect = PixelRect<ImagePixels>(
                x: seen.width / 4, y: seen.height / 4, width: max(1, seen.width / 2),
                height: max(1, seen.height / 2))
            let (report, bytes) = try Self.cropJPEG(source, rect)
            let crop = try ImageSource(ImageInput(bytes: bytes, name: name))
            let findings = try LeakCheck.findings(in: crop)
            #expect(findings.isEmpty, "\(name): \(findings)")
            #expect(crop.orientation == source.orientation, "\(name)")
            #expect(report.details(as: JPEGWriteReport.self)?.metadata.isEmpty == false)
            let sourceTags =
                try Self.exif(Array(Data(contentsOf: URL(fileURLWithPath: path))))?.tags().tags
                ?? []
            let cropTags = try Self.exif(bytes)?.tags().tags ?? []
            #expect(
                sourceTags.contains("0:34853") == cropTags.contains("0:34853"),
                "\(name): GPS kept as it was")
            // Every MakerNote is dropped but Apple's, which holds no
            // preview and carries the HDR headroom of the gain map.
            let applesKept =
                report.details(as: JPEGWriteReport.self)?.metadata.contains {
                    $0.reason.contains("Apple's MakerNote kept")
                } ?? false
            #expect(
                cropTags.contains("exif:37500") == applesKept,
                "\(name): the MakerNote is dropped unless it is Apple's, and the report says which")
            if applesKept { appleMakerNotes += 1 }
            if sourceTags.contains("0:34853") {
                let (_, stripped) = try Self.cropJPEG(
                    source, rect, policy: MetadataPolicy(stripLocation: true))
                #expect(
                    try Self.exif(stripped)?.tags().tags.contains("0:34853") == false, "\(name)")
            }
        }
        #expect(appleMakerNotes >= 2, "the iPhone JPEGs keep Apple's MakerNote")
    }

    /// A JPEG made to hold every kind of leak: an EXIF thumbnail (IFD1), a
    /// MakerNote preview, GPS, stale dimensions, a JFXX thumbnail, an XMP
    /// preview, extended XMP, MPF, a Photoshop thumbnail beside IPTC, and
    /// a second image after EOI.
    @Test func everyKindOfLeakIsRemovedAndReported() throws {
        let tiny = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 16, height: 16), horizontal: [1, 1, 1],
            vertical: [1, 1, 1])
        var markers: [UInt8] = []
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            markers += JPEGMetadata.segment(marker, body)
        }
        segment(
            0xE1, JPEGMetadata.exifSignature + DemoPhoto.exif(thumbnail: tiny, orientation: 6))
        segment(0xE0, Array("JFXX\0".utf8) + [0x10] + tiny)
        segment(
            0xE1,
            JPEGMetadata.xmpSignature
                + Array(
                    "<x:xmpmeta><rdf:Description exif:PixelXDimension=\"4000\" GImage:Data=\"/9j/4AAQ\" xmpNote:HasExtendedXMP=\"ABC\"/></x:xmpmeta>"
                        .utf8))
        segment(0xE1, JPEGMetadata.extendedXMPSignature + [UInt8](repeating: 0x41, count: 40))
        segment(0xE2, Array("MPF\0".utf8) + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8])
        segment(0xED, DemoPhoto.photoshop(thumbnail: tiny))
        let source =
            try JPEGEncoder.encoded(
                DemoPhoto.picture(width: 96, height: 64), horizontal: [2, 1, 1],
                vertical: [2, 1, 1],
                markers: markers) + tiny
        let original = try ImageSource(ImageInput(bytes: source, name: "leaky"))
        let before = try LeakCheck.findings(in: original)
        for place in [
            "APP1 EXIF", "APP0 JFXX", "APP1 XMP", "APP1 extended XMP", "APP2 MPF", "APP13",
            "after EOI",
        ] {
            #expect(before.contains { $0.place == place }, "\(place) not found in \(before)")
        }
        let (report, bytes) = try Self.cropJPEG(
            original, PixelRect(x: 16, y: 0, width: 32, height: 48))
        let crop = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        #expect(try LeakCheck.findings(in: crop).isEmpty)
        #expect(crop.orientation == .right)
        let entries = report.details(as: JPEGWriteReport.self)?.metadata ?? []
        func action(_ segment: String) -> MetadataEntry.Action? {
            entries.first { $0.segment.hasPrefix(segment) }?.action
        }
        #expect(action("APP1 EXIF") == .rewritten)
        #expect(action("APP0 JFXX") == .dropped)
        #expect(action("APP1 XMP") == .rewritten)
        #expect(action("APP1 extended XMP") == .dropped)
        #expect(action("APP2 MPF") == .dropped)
        #expect(action("APP13 Photoshop") == .rewritten)
        #expect(
            entries.contains {
                $0.segment.hasSuffix("bytes after the image") && $0.action == .dropped
            })
        let tags = try #require(try Self.exif(bytes)).tags()
        #expect(tags.orientation == 6)
        #expect(tags.tags.contains("exif:40962") && tags.tags.contains("0:34853"))
        #expect(!tags.tags.contains("exif:37500"))
        // The IPTC resource stays; the thumbnail resource goes.
        #expect(LeakCheck.contains(bytes, Array("8BIM".utf8) + [0x04, 0x04]))
        #expect(!LeakCheck.contains(bytes, Array("8BIM".utf8) + [0x04, 0x0C]))
        #expect(String(decoding: bytes, as: UTF8.self).contains("exif:PixelXDimension=\"48\""))
        // The same crop as PNG carries the cleaned EXIF (upright now) as eXIf.
        let plan = try CropJob(region: .pixels(PixelRect(x: 16, y: 0, width: 32, height: 48)))
            .plan(for: original)
        let png = MemorySink()
        let pngReport = try plan.export(to: png)
        let kept = pngReport.details(as: PNGWriteReport.self)?.keptChunks ?? []
        #expect(kept.contains("eXIf") && kept.contains("iTXt"))
        #expect(
            try LeakCheck.findings(in: ImageSource(ImageInput(bytes: png.bytes, name: "png")))
                .isEmpty)
    }
}

extension JPEGMetadataTests {
    /// A photo with an HDR gain map at half its size after it, indexed by
    /// MPF: cut by the companion rule and indexed anew by default (the crop
    /// shows no leak), dropped with `companions: .drop`.
    @Test func aGainMapIsDroppedOrCroppedWithThePhoto() throws {
        let apple = Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description apdi:AuxiliaryImageType=\"urn:com:apple:photo:2020:aux:hdrgainmap\"/></x:xmpmeta>"
                .utf8)
        let gainMap = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 160, height: 120), horizontal: [1, 1, 1], vertical: [1, 1, 1],
            markers: JPEGMetadata.segment(0xE1, apple))
        var primary = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 320, height: 240), horizontal: [2, 1, 1], vertical: [2, 1, 1],
            markers: MPFIndex.segment(secondAttribute: 0))
        #expect(MPFIndex.patch(&primary, secondSize: gainMap.count))
        let photo = try ImageSource(ImageInput(bytes: primary + gainMap, name: "hdr"))
        guard let info = photo.header as? JPEGFileInfo else { throw CocoaError(.fileReadUnknown) }
        #expect(try GainMap.find(info, input: photo.input)?.bytes == gainMap)
        let rect = PixelRect<ImagePixels>(x: 32, y: 16, width: 100, height: 64)
        // Dropped on request.
        let (dropped, plain) = try Self.cropJPEG(
            photo, rect, policy: MetadataPolicy(companions: .drop))
        #expect(
            dropped.details(as: JPEGWriteReport.self)?.metadata.contains {
                $0.segment.hasSuffix("MPF") && $0.action == .dropped
            }
                == true)
        #expect(!LeakCheck.contains(plain, Array("MPF\0".utf8)))
        // Cropped with the photo.
        let (report, bytes) = try Self.cropJPEG(
            photo, rect, policy: MetadataPolicy(companions: .keep))
        #expect(
            report.details(as: JPEGWriteReport.self)?.metadata.contains {
                $0.segment.hasSuffix("MPF") && $0.action == .rewritten
            } == true)
        let crop = try ImageSource(ImageInput(bytes: bytes, name: "crop"))
        #expect(try LeakCheck.findings(in: crop).isEmpty)
        guard let cropInfo = crop.header as? JPEGFileInfo else {
            throw CocoaError(.fileReadUnknown)
        }
        let cropped = try #require(try GainMap.find(cropInfo, input: crop.input))
        let map = try ImageSource(ImageInput(bytes: cropped.bytes, name: "gain map"))
        // 32,16,100,64 of 320x240 is 16,8,50,32 of the 160x120 gain map.
        #expect(map.storedSize == PixelSize(width: 50, height: 32))
        let expected = try ImageSource(ImageInput(bytes: gainMap, name: "map"))
            .decode(PixelRect(x: 16, y: 8, width: 50, height: 32)).image
        let psnr = JPEGExportVerifier.psnr(try map.decode().image.samples, expected.samples)
        #expect(psnr > 35, "the cropped gain map at \(psnr) dB")
        #expect(String(decoding: cropped.bytes, as: UTF8.self).contains("hdrgainmap"))
    }
}

extension JPEGMetadataTests {
    /// An Ultra HDR photo (a gain map named in the primary's XMP container
    /// and indexed by MPF): with `cropsGainMap` the container stays, its
    /// GainMap item's length becomes the cropped gain map's, and the crop
    /// shows no leak; without it, the container and MPF go.
    @Test func anUltraHDRContainerFollowsItsGainMap() throws {
        let mapXMP = Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"2.0\"/></x:xmpmeta>"
                .utf8)
        let gainMap = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 80, height: 60), horizontal: [1, 1, 1], vertical: [1, 1, 1],
            markers: JPEGMetadata.segment(0xE1, mapXMP))
        let primaryXMP = Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description hdrgm:Version=\"1.0\"><Container:Directory><rdf:Seq><rdf:li><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/></rdf:li><rdf:li><Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"\(gainMap.count)\"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description></x:xmpmeta>"
                .utf8)
        var primary = try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 320, height: 240), horizontal: [2, 1, 1], vertical: [2, 1, 1],
            markers: JPEGMetadata.segment(0xE1, primaryXMP) + MPFIndex.segment(secondAttribute: 0))
        #expect(MPFIndex.patch(&primary, secondSize: gainMap.count))
        let photo = try ImageSource(ImageInput(bytes: primary + gainMap, name: "ultra hdr"))
        let rect = PixelRect<ImagePixels>(x: 64, y: 32, width: 128, height: 96)
        let (_, kept) = try Self.cropJPEG(photo, rect, policy: MetadataPolicy(companions: .keep))
        let crop = try ImageSource(ImageInput(bytes: kept, name: "crop"))
        #expect(try LeakCheck.findings(in: crop).isEmpty)
        guard let info = crop.header as? JPEGFileInfo else { throw CocoaError(.fileReadUnknown) }
        let map = try #require(try GainMap.find(info, input: crop.input))
        let text = String(decoding: kept, as: UTF8.self)
        #expect(text.contains("<Container:Directory>"))
        #expect(
            text.contains(
                "Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"\(map.bytes.count)\""
            ))
        #expect(map.bytes.count != gainMap.count)
        let (_, dropped) = try Self.cropJPEG(photo, rect, policy: MetadataPolicy(companions: .drop))
        #expect(!String(decoding: dropped, as: UTF8.self).contains("Container:Directory"))
        #expect(
            try LeakCheck.findings(in: ImageSource(ImageInput(bytes: dropped, name: "sdr"))).isEmpty
        )
    }
}
