import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG is well-formed XML and its rectangles carry the numbers the
/// mapping computed.
@Suite(.announcesSkips) struct CropDiagramTests {
    final class Collector: NSObject, XMLParserDelegate {
        var rects: [String: [String: String]] = [:]
        var texts: [String] = []
        var inText = false

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if name == "rect", let id = attributes["id"] { rects[id] = attributes }
            inText = name == "text" || name == "title"
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inText { texts.append(string) }
        }
    }

    static func parse(_ svg: String) throws -> Collector {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        return collector
    }

    @Test(arguments: ContentMode.allCases, [EXIFOrientation.up, .right, .leftMirrored])
    func rectanglesCarryTheMappedNumbers(mode: ContentMode, orientation: EXIFOrientation) throws {
        let request = CropRequest(
            sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 390, height: 844),
            selection: Rect(x: 60.5, y: 300, width: 200, height: 150), mode: mode, imageScale: 10,
            zoom: Zoom(scale: 1.25, offset: Vector(dx: 10, dy: -20)), orientation: orientation)
        let svg = try Self.parse(CropDiagram.svg(for: request))
        #expect(svg.rects["viewport"]?["data-view"] == "0,0,390,844")
        #expect(svg.rects["selection"]?["data-view"] == "60.5,300,200,150")
        #expect(svg.rects["display"]?["data-view"] == (try request.displayRect()).description)
        switch request.result() {
        case .success(let result):
            let pixels = try #require(svg.rects["pixels"])
            #expect(
                pixels["data-x"] == String(result.rect.x)
                    && pixels["data-y"] == String(result.rect.y))
            #expect(pixels["data-width"] == String(result.rect.width))
            #expect(pixels["data-height"] == String(result.rect.height))
            #expect(pixels["data-stored"] == result.stored.description)
            #expect(svg.texts.joined().contains("pixels \(result.rect)"))
        case .failure(let rejection):
            #expect(svg.rects["pixels"] == nil)
            #expect(svg.texts.joined().contains("rejected: \(rejection.code)"))
        }
    }

    @Test func rejectedAndNonFiniteInputsStillDraw() throws {
        var request = CropRequest(
            sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300),
            selection: Rect(x: 0, y: 0, width: 300, height: 30))
        #expect(try Self.parse(CropDiagram.svg(for: request)).rects["clip"] == nil)
        request.selection.x = .nan
        #expect(
            try Self.parse(CropDiagram.svg(for: request)).texts.joined().contains(
                "rejected: nonFinite"))
    }
}

extension CropDiagramTests {
    /// A selection inside the image stays visible: it is drawn after (over)
    /// the pixels' outline; the legend names the clip; an aspect is drawn
    /// as the snapped rect.
    @Test func theSelectionIsDrawnOverThePixels() throws {
        let request = CropRequest(
            sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300),
            selection: Rect(x: 75, y: 75, width: 150, height: 150))
        let svg = CropDiagram.svg(for: request)
        let pixels = try #require(svg.range(of: "id=\"pixels\""))
        let selection = try #require(svg.range(of: "id=\"selection\""))
        #expect(pixels.lowerBound < selection.lowerBound)
        #expect(svg.contains(">clip (selection on the image)</text>"))
        let snapped = CropDiagram.svg(
            for: CropRequest(
                sourceSize: Size(width: 4000, height: 3000),
                viewport: Size(width: 300, height: 300),
                selection: Rect(x: 75, y: 75, width: 150, height: 100)),
            aspect: .ratio(.square))
        #expect(snapped.contains("data-width=\"2000\" data-height=\"2000\""))
        #expect(snapped.contains("aspect 1:1"))
    }

    /// CoreGraphics values go in and come out unchanged, as given (a
    /// negative width is not standardized away).
    @Test func coreGraphicsValuesConvertExactly() {
        let frame = CGRect(x: 0.15, y: 75, width: -150, height: 150)
        let rect = Rect<ViewPoints>(frame)
        #expect(rect == Rect(x: 0.15, y: 75, width: -150, height: 150))
        #expect(rect.cgRect.origin == frame.origin && rect.cgRect.size == frame.size)
        #expect(Size<ViewPoints>(CGSize(width: 390, height: 844)) == Size(width: 390, height: 844))
        #expect(Size<ViewPoints>(width: 3, height: 4).cgSize == CGSize(width: 3, height: 4))
        #expect(Point<ViewPoints>(CGPoint(x: 1.5, y: 2)).cgPoint == CGPoint(x: 1.5, y: 2))
        #expect(
            PixelRect<ImagePixels>(x: 1, y: 2, width: 3, height: 4).cgRect
                == CGRect(x: 1, y: 2, width: 3, height: 4))
    }
}
