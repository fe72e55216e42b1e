import CropGeometry

/// A coded image as a grid of tiles (a single coded image is a 1×1 grid
/// whose canvas is its own size).
public struct HEIFLayout: Sendable {
    /// The canvas width (a grid's output width).
    public var width: Int
    /// The canvas height.
    public var height: Int
    /// Tiles across.
    public var columns: Int
    /// Tiles down.
    public var rows: Int
    /// Each tile's coded width (the last column may reach past the canvas).
    public var tileWidth: Int
    /// Each tile's coded height.
    public var tileHeight: Int
    /// Whether the image is a `grid` item (not one coded image).
    public var isGrid: Bool
    /// The tiles, row by row.
    public var tiles: [HEIFCodedImage]

    /// The indices of the tiles `rect` (on the canvas) touches, row by row.
    public func tiles(touching rect: PixelRect<StoredPixels>) -> [Int] {
        let columnRange = rect.x / tileWidth...(rect.x + rect.width - 1) / tileWidth
        let rowRange = rect.y / tileHeight...(rect.y + rect.height - 1) / tileHeight
        return rowRange.flatMap { row in columnRange.map { row * columns + $0 } }
    }
}
