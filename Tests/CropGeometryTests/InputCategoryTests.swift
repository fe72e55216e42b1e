import CropGeometry
import CropKitTestSupport
import Testing

/// The article's six input categories (landscape, portrait, full selection,
/// padding only, beyond an edge, fractional edges) in square and non-square
/// containers, for every content mode and every orientation, each checked
/// against the exact reference.
@Suite(.announcesSkips) struct InputCategoryTests {
    enum Category: String, CaseIterable {
        case landscape, portrait, fullSelection, paddingOnly, beyondAnEdge, fractionalEdges
    }

    static let containers: [(Double, Double)] = [(300, 300), (390, 844), (844, 390)]

    static func cases(mode: ContentMode, orientation: EXIFOrientation) -> [(Category, MappingCase)]
    {
        var out: [(Category, MappingCase)] = []
        for (vw, vh) in containers {
            for category in Category.allCases {
                // Stored sizes chosen so the oriented image is landscape for
                // `landscape` and portrait for `portrait`, whatever the orientation.
                let landscape = category != .portrait
                let (ow, oh) = landscape ? (4032, 3024) : (3024, 4032)
                let (sw, sh) = orientation.swapsAxes ? (oh, ow) : (ow, oh)
                var c = MappingCase(
                    sw: sw, sh: sh, vw: vw, vh: vh, x: 0, y: 0, w: vw, h: vh, mode: mode,
                    imageScale: 8, z: 1, ox: 0, oy: 0, orientation: orientation)
                let display = try! c.request.displayRect()
                switch category {
                case .landscape, .portrait:
                    (c.x, c.y, c.w, c.h) = (vw / 4, vh / 4, vw / 2, vh / 2)
                case .fullSelection:
                    break
                case .paddingOnly:
                    // Above or left of the image when there is padding there,
                    // else just outside the view.
                    if display.y >= 1 {
                        (c.x, c.y, c.w, c.h) = (0, 0, vw, (display.y * 64).rounded(.down) / 64)
                    } else if display.x >= 1 {
                        (c.x, c.y, c.w, c.h) = (0, 0, (display.x * 64).rounded(.down) / 64, vh)
                    } else {
                        (c.x, c.y, c.w, c.h) = (-50, -50, 50, vh)
                    }
                case .beyondAnEdge:
                    (c.x, c.y, c.w, c.h) = (vw / 2, vh / 2, vw, vh)
                case .fractionalEdges:
                    (c.x, c.y, c.w, c.h) = (vw / 3, vh / 3, vw / 5, vh / 7)
                    for value in [\MappingCase.x, \.y, \.w, \.h] {
                        c[keyPath: value] = (c[keyPath: value] * 64).rounded() / 64 + 1 / 64
                    }
                }
                out.append((category, c))
            }
        }
        return out
    }

    @Test(arguments: ContentMode.allCases, EXIFOrientation.allCases)
    func everyCategoryMatchesTheReference(mode: ContentMode, orientation: EXIFOrientation) throws {
        for (category, c) in Self.cases(mode: mode, orientation: orientation) {
            let expected = try referenceMapping(c)
            let outcome = c.request.result()
            switch (expected, outcome) {
            case (nil, .failure(let rejection)):
                #expect(rejection == .noImagePixels)
            case (let e?, .success(let result)):
                let r = result.rect
                #expect([r.x, r.y, r.maxX, r.maxY] == [e.0, e.1, e.2, e.3], "\(category) \(c)")
                let s = referenceStoredRect(c, e)
                let t = result.stored
                #expect([t.x, t.y, t.maxX, t.maxY] == [s.0, s.1, s.2, s.3], "\(category) \(c)")
                #expect(r.isInside(result.orientedSize) && t.isInside(result.sourceSize))
            default:
                Issue.record(
                    "\(category) \(c): reference \(String(describing: expected)), CropKit \(outcome)"
                )
            }
            // What each category must show, whatever the mode:
            switch category {
            case .paddingOnly:
                #expect(expected == nil, "\(category) \(c)")
            case .fullSelection where mode == .aspectFit || mode == .scaleToFill:
                let (ow, oh) = orientation.swapsAxes ? (c.sh, c.sw) : (c.sw, c.sh)
                #expect(
                    expected.map { [$0.0, $0.1, $0.2, $0.3] } == [0, 0, ow, oh], "\(category) \(c)")
            default:
                break
            }
        }
    }
}
