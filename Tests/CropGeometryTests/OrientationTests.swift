import CropGeometry
import CropKitTestSupport
import Testing

@Suite(.announcesSkips) struct OrientationTests {
    /// `storedRect` holds exactly the stored pixels that the orientation table
    /// sends into the oriented rect, checked pixel by pixel on a small image.
    @Test(arguments: EXIFOrientation.allCases)
    func storedRectHoldsExactlyTheOrientedPixels(orientation: EXIFOrientation) {
        let stored = PixelSize<StoredPixels>(width: 7, height: 5)
        let oriented = orientation.orientedSize(stored)
        let rect = PixelRect<ImagePixels>(
            x: 1, y: 2, width: oriented.width - 3, height: oriented.height - 2)
        let storedRect = orientation.storedRect(rect, storedSize: stored)
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                let seen = orientation.orientedPoint(x: x, y: y, storedSize: stored)
                let insideOriented =
                    seen.x >= rect.x && seen.x < rect.maxX && seen.y >= rect.y && seen.y < rect.maxY
                let insideStored =
                    x >= storedRect.x && x < storedRect.maxX && y >= storedRect.y
                    && y < storedRect.maxY
                #expect(insideOriented == insideStored, "stored (\(x),\(y)) seen at \(seen)")
            }
        }
        #expect(orientation.orientedRect(storedRect, storedSize: stored) == rect)
    }

    /// The table's geometry: where the stored top-left pixel is seen.
    @Test func storedTopLeftPixelIsSeenWhereTheTagSays() {
        let stored = PixelSize<StoredPixels>(width: 4, height: 3)
        let expected: [EXIFOrientation: (Int, Int)] = [
            .up: (0, 0), .upMirrored: (3, 0), .down: (3, 2), .downMirrored: (0, 2),
            .leftMirrored: (0, 0), .right: (2, 0), .rightMirrored: (2, 3), .left: (0, 3),
        ]
        for (orientation, point) in expected {
            let seen = orientation.orientedPoint(x: 0, y: 0, storedSize: stored)
            #expect(seen.x == point.0 && seen.y == point.1, "\(orientation)")
        }
    }

    @Test(arguments: EXIFOrientation.allCases)
    func mappingUsesTheOrientedSize(orientation: EXIFOrientation) throws {
        // A 3000x4000 stored portrait turned to landscape by 6 or 8 fills a
        // 400x300 view exactly.
        let request = CropRequest(
            sourceSize: Size(width: 3000, height: 4000), viewport: Size(width: 400, height: 300),
            selection: Rect(x: 0, y: 0, width: 100, height: 300), orientation: orientation)
        let result = try request.map()
        if orientation.swapsAxes {
            #expect(result.rect == PixelRect(x: 0, y: 0, width: 1000, height: 3000))
        } else {
            // 3000x4000 upright in 400x300: 225 pt wide, centred at 87.5.
            #expect(result.rect == PixelRect(x: 0, y: 0, width: 167, height: 4000))
        }
        #expect(result.stored == orientation.storedRect(result.rect, storedSize: result.sourceSize))
    }
}
