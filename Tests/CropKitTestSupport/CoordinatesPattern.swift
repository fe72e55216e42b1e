import CropTestKit

/// The "coordinates" pattern of the corpora's generated images and of the
/// test kit's export fixtures: each pixel holds where it is seen, R = x &
/// 255, G = y & 255, B = (x >> 8) << 4 | y >> 8. One formula, the kit's
/// (``CropExportTest/expected(_:_:)``), for every test that reads it back.
public enum CoordinatesPattern {
    /// The red, green and blue samples of the pixel seen at (`x`, `y`).
    public static func rgb(_ x: Int, _ y: Int) -> [Int] {
        CropExportTest.expected(x, y).prefix(3).map(Int.init)
    }

    /// The red, green and blue samples of the pixels seen at `xs` in row
    /// `y`, three a pixel: the formula of ``rgb(_:_:)`` a row at a time.
    public static func rgbRow(_ xs: Range<Int>, y: Int) -> [Int] {
        let rgba = FixturePattern.rgbaCoordinates.row(xs, y: y)
        var rgb: [Int] = []
        rgb.reserveCapacity(xs.count * 3)
        for i in stride(from: 0, to: rgba.count, by: 4) {
            rgb.append(Int(rgba[i]))
            rgb.append(Int(rgba[i + 1]))
            rgb.append(Int(rgba[i + 2]))
        }
        return rgb
    }
}
