import CropGeometry
import CropKitTestSupport
import Testing

/// The rects a JPEG crop can copy losslessly: on the block grid, or grown to
/// it, keeping an exact ratio where the grid allows one.
@Suite(.announcesSkips) struct BlockGridTests {
    let photo = PixelSize<StoredPixels>(width: 4032, height: 3024)
    let grid = PixelSize<StoredPixels>(width: 16, height: 16)

    @Test func onTheGridOrAtThePhotosEdge() {
        #expect(
            PixelRect<StoredPixels>(x: 16, y: 32, width: 160, height: 48).isOnBlockGrid(
                grid, within: photo))
        // The right and bottom edges may end at the photo's edge.
        #expect(
            PixelRect<StoredPixels>(x: 4000, y: 3008, width: 32, height: 16).isOnBlockGrid(
                grid, within: photo))
        #expect(
            !PixelRect<StoredPixels>(x: 17, y: 32, width: 160, height: 48).isOnBlockGrid(
                grid, within: photo))
        #expect(
            !PixelRect<StoredPixels>(x: 16, y: 32, width: 161, height: 48).isOnBlockGrid(
                grid, within: photo))
        #expect(
            !PixelRect<StoredPixels>(x: 16, y: 32, width: 160, height: 47).isOnBlockGrid(
                grid, within: photo))
    }

    @Test func grownOutwardAndShrunkInward() {
        let rect = PixelRect<StoredPixels>(x: 17, y: 16, width: 40, height: 33)
        #expect(
            rect.snapped(toBlocks: grid, within: photo, outward: true)
                == PixelRect(x: 16, y: 16, width: 48, height: 48))
        #expect(
            rect.snapped(toBlocks: grid, within: photo, outward: false)
                == PixelRect(x: 32, y: 16, width: 16, height: 32))
        // Outward never leaves the photo.
        let corner = PixelRect<StoredPixels>(x: 4020, y: 3010, width: 12, height: 14)
        #expect(
            corner.snapped(toBlocks: grid, within: photo, outward: true)
                == PixelRect(x: 4016, y: 3008, width: 16, height: 16))
    }

    @Test(arguments: [(1, 1), (4, 3), (3, 2), (16, 9), (4, 5)])
    func anExactRatioOnTheGrid(width: Int, height: Int) throws {
        let ratio = try #require(AspectRatio(width: width, height: height))
        let rect = PixelRect<StoredPixels>(x: 1001, y: 753, width: 301, height: 211)
        let snapped = try #require(rect.snapped(toBlocks: grid, keeping: ratio, within: photo))
        #expect(snapped.width * ratio.height == snapped.height * ratio.width)
        #expect(snapped.isOnBlockGrid(grid, within: photo))
        #expect(
            snapped.x <= rect.x && snapped.y <= rect.y && snapped.maxX >= rect.maxX
                && snapped.maxY >= rect.maxY)
    }

    @Test func aRatioTheGridCannotHoldIsNil() throws {
        // 16:9 on a 16-px grid comes in steps of 256x144: none holds a rect
        // taller than the photo allows.
        let small = PixelSize<StoredPixels>(width: 300, height: 200)
        let rect = PixelRect<StoredPixels>(x: 0, y: 0, width: 290, height: 150)
        #expect(
            rect.snapped(
                toBlocks: grid, keeping: try #require(AspectRatio(width: 16, height: 9)),
                within: small) == nil)
    }
}
