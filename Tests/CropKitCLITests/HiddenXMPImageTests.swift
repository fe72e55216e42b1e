import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Hostile input, round five, class 3: an image in an XMP packet (Adobe's
/// `xmpGImg:image` thumbnail, Google's `GImage:Data`, or base64 under a name
/// nothing knows, as an attribute, an element or an `rdf:Alt` item) is
/// found by `leaks` in every format's XMP, not a JPEG's alone, and no crop
/// carries it: the property is removed and named, the rest of the packet
/// kept. Read back by exiftool and by a byte search for the base64 text.
@Suite(.announcesSkips) struct HiddenXMPImageTests {
    static let namespaces =
        "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:acme=\"http://acme.example/ns/1.0/\" xmlns:GImage=\"http://ns.google.com/photos/1.0/image/\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:xmpGImg=\"http://ns.adobe.com/xap/1.0/g/img/\""

    /// A packet with a title (kept) and `attributes` and `elements` in its
    /// description.
    static func packet(attributes: String = "", elements: String = "") -> String {
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" \(namespaces) \(attributes)><dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">kept title</rdf:li></rdf:Alt></dc:title>\(elements)</rdf:Description></rdf:RDF></x:xmpmeta>"
    }

    /// A case: where the image hides (`value` stands for the base64 text),
    /// the property, and what it holds.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var attributes: String = ""
        var elements: String = ""
        var property: String
        var image: String
        var png = false
        /// Names a cleaner removes whatever they hold, each with a name of
        /// its length no list knows, for the file another writer makes.
        var disguises: [(String, String)] = []
        var description: String { name }

        func packet(_ value: String, disguised: Bool = false) -> String {
            var text = HiddenXMPImageTests.packet(
                attributes: attributes.replacingOccurrences(of: "VALUE", with: value),
                elements: elements.replacingOccurrences(of: "VALUE", with: value))
            for (real, fake) in disguises where disguised {
                text = text.replacingOccurrences(of: real, with: fake)
            }
            return text
        }
    }

    static let cases: [Case] = [
        Case(
            name: "an attribute nothing knows", attributes: "acme:Photo=\"VALUE\"",
            property: "acme:Photo", image: "a base64 JPEG image"),
        Case(
            name: "an element nothing knows", elements: "<acme:Photo>VALUE</acme:Photo>",
            property: "acme:Photo", image: "a base64 JPEG image"),
        Case(
            name: "an rdf:Alt item",
            elements:
                "<acme:Thumbs><rdf:Alt><rdf:li xml:lang=\"x-default\">\nVALUE</rdf:li></rdf:Alt></acme:Thumbs>",
            property: "acme:Thumbs", image: "a base64 JPEG image"),
        Case(
            name: "a PNG under a name nothing knows", attributes: "acme:Icon=\"VALUE\"",
            property: "acme:Icon", image: "a base64 PNG image", png: true),
        Case(
            name: "Google's GImage:Data", attributes: "GImage:Data=\"VALUE\"",
            property: "GImage:Data", image: "a preview or an image item",
            disguises: [("GImage:Data", "acme:Datum1")]),
        Case(
            name: "Adobe's xmpGImg:image",
            elements:
                "<xmp:Thumbnails><rdf:Alt><rdf:li rdf:parseType=\"Resource\"><xmpGImg:image>VALUE</xmpGImg:image></rdf:li></rdf:Alt></xmp:Thumbnails>",
            property: "xmpGImg:image", image: "a preview or an image item",
            disguises: [("xmp:Thumbnails", "acme:Thumbnail"), ("xmpGImg:image", "acme:ImageXYZ")]),
    ]

    /// A PNG chunk of `type` holding `data`.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let be32 = HiddenProfileImageTests.be32
        let typeBytes = Array(type.utf8)
        return be32(data.count) + typeBytes + data + be32(Int(TestData.crc32(typeBytes + data)))
    }

    @Test(arguments: cases)
    func anImageInAnyFormatsXMPIsFoundAndNotCarried(item: Case) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image =
            item.png
            ? try PNGEncoder().encode(Fixture.make(.coordinates, width: 16, height: 12))
            : HiddenProfileImageTests.wholePhoto()
        let base64 = Data(image).base64EncodedString()
        // The same length of plain text: carried by every writer, then the
        // image put in its place.
        let placeholder = String(repeating: "Q", count: base64.count)
        let pixels = try PNGEncoder().encode(Fixture.make(.coordinates, width: 64, height: 48))
        func png(_ xmp: String) -> [UInt8] {
            let itxt = Self.pngChunk(
                "iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8))
            return Array(pixels[..<33]) + itxt + pixels[33...]
        }
        var sources: [String] = []
        func write(_ bytes: [UInt8], _ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let hostile = item.packet(base64)
        let disguised = item.packet(placeholder, disguised: true)
        try #require(hostile.utf8.count == disguised.utf8.count)
        sources.append(try write(png(hostile), "source.png"))
        let plain = try write(png(disguised), "plain.png")
        for format in ["jpg", "webp"] + (HEIFEncoder.canEncodeTiles ? ["avif"] : []) {
            let made = folder.appendingPathComponent("plain.\(format)").path
            let run = cropkit("crop", plain, "--pixels", "0,0,64,48", "-o", made)
            try #require(run.status == 0, "\(run.err)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: made)))
            sources.append(
                try write(
                    try HiddenProfileImageTests.replacing(
                        Array(disguised.utf8), with: Array(hostile.utf8), in: bytes),
                    "source.\(format)"))
        }
        let hidden = Array(base64.prefix(64).utf8)
        for source in sources {
            let leaks = cropkit("leaks", source)
            let said = item.image.hasPrefix("a preview") ? item.image : "holds \(item.image)"
            #expect(
                leaks.out.contains(item.property) && leaks.out.contains(said),
                "\(item) in \(source): \(leaks.out)")
            for format in ["jpg", "png", "webp"] {
                let output = folder.appendingPathComponent("out.\(format)").path
                let run = cropkit("crop", source, "--pixels", "8,8,40,30", "-o", output, "--force")
                try #require(run.status == 0, "\(item) \(source) -> \(format): \(run.err)")
                let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
                let carried = HiddenProfileImageTests.holds(written, hidden)
                #expect(!carried, "\(item) in \(source) reached its crop to \(format)")
                #expect(
                    run.out.contains("\(item.property) removed"),
                    "\(item) \(source) -> \(format): \(run.out)")
                guard ExifTool.isInstalled else { continue }
                let tags = try ExifTool.tags(output)
                #expect(
                    tags.first { $0.key.hasSuffix(":Title") }?.value as? String == "kept title",
                    "\(source) -> \(format): the rest of the packet: \(tags.keys.sorted())")
                let left = tags.keys.filter {
                    $0.contains("Photo") || $0.contains("Thumbs") || $0.contains("Icon")
                        || $0.contains("ImageData") || $0.contains("Thumbnail")
                }
                #expect(left.isEmpty, "\(item) \(source) -> \(format): exiftool reads \(left)")
            }
        }
    }
}
