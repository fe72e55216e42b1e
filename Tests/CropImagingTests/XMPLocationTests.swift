import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// `--strip location` reads XMP as XML: location properties go by
/// namespace URI, whatever the prefix, the quotes or the white space, in
/// attribute and element form, in JPEG and in HEIC; the report names each
/// one removed; everything else stays byte for byte.
@Suite(.announcesSkips) struct XMPLocationTests {
    static let packet = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:e="http://ns.adobe.com/exif/1.0/"
            xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
            xmlns:ps="http://ns.adobe.com/photoshop/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
            xmlns:apple="http://ns.apple.com/ImageIO/1.0/"
            e:GPSLatitude = '47,21.25N'
            e:ExposureTime="1/100"
            drone-dji:GpsLongtitude="+10.19"
            drone-dji:AbsoluteAltitude="+1252.12"
            drone-dji:GimbalYawDegree="-127.10"
            ps:City="Oberstdorf"
            ps:Headline="GPSLatitude is only a word here"
            apple:LocationAccuracy="5">
           <e:GPSLongitude>10,11.4E</e:GPSLongitude>
           <e:GPSDestLatitude/>
           <Iptc4xmpExt:LocationCreated><rdf:Bag><rdf:li rdf:parseType="Resource"><Iptc4xmpExt:City>Oberstdorf</Iptc4xmpExt:City></rdf:li></rdf:Bag></Iptc4xmpExt:LocationCreated>
           <!-- e:GPSAltitude="kept as a comment is not a property" -->
           <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Alps</rdf:li></rdf:Alt></dc:title>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    static let removed = [
        "e:GPSLatitude", "drone-dji:GpsLongtitude", "drone-dji:AbsoluteAltitude", "ps:City",
        "apple:LocationAccuracy", "e:GPSLongitude", "e:GPSDestLatitude",
        "Iptc4xmpExt:LocationCreated",
    ]

    @Test func everyLocationPropertyGoesByNamespace() throws {
        let (text, names) = try #require(XMPLocation.removing(from: Self.packet))
        #expect(names == Self.removed)
        for gone in [
            "47,21.25N", "+10.19", "+1252.12", "ps:City", "LocationAccuracy", "10,11.4E",
            "GPSDestLatitude", "LocationCreated",
        ] {
            #expect(!text.contains(gone), "\(gone)")
        }
        for kept in [
            "e:ExposureTime=\"1/100\"", "GimbalYawDegree", "GPSLatitude is only a word",
            "<dc:title>", "e:GPSAltitude=\"kept as a comment", "<?xpacket end=\"w\"?>",
        ] {
            #expect(text.contains(kept), "\(kept)")
        }
        // Still XML, with nothing left to remove.
        #expect(try #require(XMPLocation.removing(from: text)).removed.isEmpty)
    }

    /// Prefixes are the file's: the same names under another namespace
    /// stay, and the EXIF namespace under any prefix goes.
    @Test func prefixesDoNotDecide() throws {
        let other =
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><d xmlns:exif="urn:not-exif" exif:GPSLatitude="1"/></x:xmpmeta>"#
        #expect(try #require(XMPLocation.removing(from: other)).removed.isEmpty)
        let renamed =
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><d xmlns:q="http://ns.adobe.com/exif/1.0/"   q:GPSAltitude  =  "1"  q:FNumber="2"/></x:xmpmeta>"#
        let (text, names) = try #require(XMPLocation.removing(from: renamed))
        #expect(names == ["q:GPSAltitude"])
        #expect(
            text
                == #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><d xmlns:q="http://ns.adobe.com/exif/1.0/"  q:FNumber="2"/></x:xmpmeta>"#
        )
    }

    /// A packet that is not XML is dropped whole under --strip location,
    /// and said so; without it, it is kept.
    @Test(arguments: [
        #"<x:xmpmeta><rdf:Description exif:GPSLatitude="1"/></x:xmpmeta>"#,  // undeclared prefix
        #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><a xmlns:e="http://ns.adobe.com/exif/1.0/" e:GPSLatitude="1></x:xmpmeta>"#,
        #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><a></b></x:xmpmeta>"#,
    ])
    func unreadablePacketsAreDroppedWhole(packet: String) throws {
        #expect(XMPLocation.removing(from: packet) == nil)
        let (stripped, changes, _) = XMPCleaner.clean(
            packet, size: PixelSize(width: 1, height: 1),
            policy: MetadataPolicy(stripLocation: true))
        #expect(stripped == nil)
        #expect(changes.joined().contains("cannot be read as XML"))
        #expect(
            XMPCleaner.clean(packet, size: PixelSize(width: 1, height: 1), policy: MetadataPolicy())
                .0 != nil)
    }

    /// The DJI drone photo of the corpus: its crop under --strip location
    /// holds no drone-dji position or altitude, and the report names them.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func theDronePhotoLosesItsPosition() throws {
        let source = try ImageSource.open(
            path: TestData.path("camera/hasselblad_l1d_drone_gps.jpg"))
        let plan = try CropJob(
            region: .pixels(PixelRect(x: 8, y: 0, width: 48, height: 48)),
            format: .jpeg(JPEGEncoder(metadata: MetadataPolicy(stripLocation: true)))
        ).plan(for: source)
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        let text = String(decoding: sink.bytes, as: UTF8.self)
        for gone in [
            "GpsLatitude", "GpsLongitude", "AbsoluteAltitude", "RelativeAltitude", "+47.35",
        ] {
            #expect(!text.contains(gone), "\(gone)")
        }
        #expect(text.contains("GimbalYawDegree"))
        let xmp = try #require(
            report.details(as: JPEGWriteReport.self)?.metadata.first { $0.segment.hasSuffix("XMP") }
        )
        #expect(xmp.reason.contains("drone-dji:GpsLatitude"))
        #expect(xmp.reason.contains("drone-dji:RelativeAltitude"))
        // And exiftool, an independent reader, finds no location in it.
        if let tags = try Self.exiftool(sink.bytes) {
            let location = tags.filter {
                let key = $0.lowercased()
                return key.contains("gps") || key.contains("latitude")
                    || key.contains("longitude") || key.contains("longtitude")
                    || key.contains("altitude")
            }
            #expect(location.isEmpty, "exiftool reads \(location)")
            #expect(tags.contains { $0.hasSuffix("GimbalYawDegree") })
        }
    }

    /// The tag names exiftool reads in `bytes` (`-G1` groups), or `nil`
    /// where exiftool is not installed.
    static func exiftool(_ bytes: [UInt8]) throws -> [String]? {
        guard ExifTool.isInstalled else { return nil }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("crop.jpg")
        try Data(bytes).write(to: file)
        return Array(try ExifTool.tags(file.path, groups: "-G1", numeric: false).keys)
    }

    /// The same XMP inside a HEIC: gone from its HEIC and JPEG crops.
    @Test(.enabled(if: HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles))
    func aHEICLosesItsXMPLocation() throws {
        let heic = try DemoPhoto.heic(width: 128, height: 96, tile: 64, xmp: Self.packet)
        let source = try ImageSource(ImageInput(bytes: heic, name: "photo.heic"))
        for format in [
            OutputFormat.heif(HEIFEncoder(metadata: MetadataPolicy(stripLocation: true))),
            .jpeg(JPEGEncoder(metadata: MetadataPolicy(stripLocation: true))),
        ] {
            let plan = try CropJob(
                region: .pixels(PixelRect(x: 0, y: 0, width: 64, height: 64)), format: format
            ).plan(for: source)
            let sink = MemorySink()
            _ = try plan.export(to: sink)
            let text = String(decoding: sink.bytes, as: UTF8.self)
            #expect(text.contains("ExposureTime"), "the XMP is kept")
            for gone in ["47,21.25N", "+10.19", "Oberstdorf", "10,11.4E", "LocationAccuracy"] {
                #expect(!text.contains(gone), "\(gone)")
            }
        }
    }
}
