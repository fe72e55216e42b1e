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
}
