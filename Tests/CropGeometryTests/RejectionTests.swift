import CropGeometry
import CropKitTestSupport
import Testing

@Suite(.announcesSkips) struct RejectionTests {
    static let valid = CropRequest(
        sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300),
        selection: Rect(x: 75, y: 75, width: 150, height: 150))

    static func with(_ change: (inout CropRequest) -> Void) -> CropRequest {
        var request = valid
        change(&request)
        return request
    }

    @Test(arguments: [
        (with { $0.selection.x = .nan }, "nonFinite"),
        (with { $0.viewport.width = .infinity }, "nonFinite"),
        (with { $0.zoom.offset.dy = -.infinity }, "nonFinite"),
        (with { $0.sourceSize.width = 4000.5 }, "sourceNotPositiveInteger"),
        (with { $0.sourceSize.height = 0 }, "sourceNotPositiveInteger"),
        (with { $0.sourceSize.height = -3000 }, "sourceNotPositiveInteger"),
        (with { $0.sourceSize.width = 0x1p60 }, "sourceTooLarge"),
        (with { $0.viewport.height = 0 }, "viewportNotPositive"),
        (with { $0.viewport.width = -300 }, "viewportNotPositive"),
        (with { $0.selection.width = 0 }, "selectionSizeNotPositive"),
        (with { $0.selection.height = -150 }, "selectionSizeNotPositive"),
        (with { $0.zoom.scale = 0 }, "zoomNotPositive"),
        (with { $0.imageScale = -1 }, "imageScaleNotPositive"),
        (
            with {
                $0.selection.y = 0
                $0.selection.height = 37.5
            }, "noImagePixels"
        ),
        (with { $0.selection.x = 300 }, "noImagePixels"),
        (with { $0.zoom.offset.dx = 1000 }, "noImagePixels"),
    ])
    func eachRuleNamesItself(request: CropRequest, code: String) {
        guard case .failure(let rejection) = request.result() else {
            Issue.record("\(request) was not rejected")
            return
        }
        #expect(rejection.code == code)
        #expect(!rejection.description.isEmpty)
    }

    @Test func firstBrokenRuleInContractOrderIsReported() {
        let request = Self.with {
            $0.selection.width = -1
            $0.viewport.width = 0
            $0.zoom.scale = .nan
        }
        #expect(request.result() == .failure(.nonFinite(field: "zoom scale")))
    }

    /// Step 7's boundary: an edge exactly 1e-6 px from an integer snaps to it;
    /// a hair more does not. 1 px = 1,000,000 pt here, so the pixel edges are
    /// exact decimal millionths.
    @Test func snapBoundaryIsInclusiveAtExactlyOneMillionth() throws {
        func mapped(_ x: Double, _ width: Double) throws -> PixelRect<ImagePixels> {
            try CropRequest(
                sourceSize: Size(width: 5, height: 1), viewport: Size(width: 5_000_000, height: 1),
                selection: Rect(x: x, y: 0, width: width, height: 1), mode: .scaleToFill
            ).map().rect
        }
        // Left edge at 0.999999 px snaps up to 1; at 0.999998 it rounds down to 0.
        #expect(try mapped(999_999, 1_000_000).x == 1)
        #expect(try mapped(999_998, 1_000_000).x == 0)
        // Right edge at 2.000001 px snaps down to 2; at 2.000002 it rounds up to 3.
        #expect(try mapped(1_000_000, 1_000_001).maxX == 2)
        #expect(try mapped(1_000_000, 1_000_002).maxX == 3)
        // A sliver of exactly 1e-6 px inside the image covers no pixel.
        #expect(throws: CropRejection.noImagePixels) { try mapped(1_999_999, 1) }
    }

    /// Touching the image along an edge is zero area.
    @Test func touchingAnEdgeIsRejected() {
        let request = Self.with { $0.selection = Rect(x: 0, y: 0, width: 300, height: 37.5) }
        #expect(request.result() == .failure(.noImagePixels))
    }
}

/// The rounding table in the guide (CropImaging.docc/Guide.md), through the whole mapping: 1 px is
/// exactly 1,000,000 pt here, so each edge is an exact decimal.
@Suite(.announcesSkips) struct RoundingTableTests {
    @Test(arguments: [
        (4.0, 4, 4), (3.9999995, 4, 4), (3.999999, 4, 4), (3.999998, 3, 4), (4.000001, 4, 4),
        (4.000002, 4, 5), (4.5, 4, 5),
    ])
    func edgeRoundsAsTheTableSays(edge: Double, asLeft: Int, asRight: Int) throws {
        let points = (edge * 1_000_000).rounded()
        func request(x: Double, width: Double) -> CropRequest {
            CropRequest(
                sourceSize: Size(width: 10, height: 1),
                viewport: Size(width: 10_000_000, height: 1),
                selection: Rect(x: x, y: 0, width: width, height: 1), mode: .scaleToFill)
        }
        #expect(try request(x: points, width: 10_000_000 - points).map().rect.x == asLeft)
        #expect(try request(x: 0, width: points).map().rect.maxX == asRight)
    }
}
