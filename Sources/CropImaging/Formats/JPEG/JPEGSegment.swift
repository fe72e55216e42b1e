import CropGeometry

/// One marker segment of a JPEG file: its marker and where its body lies.
public struct JPEGSegment: Hashable, Sendable {
    /// The marker's second byte (0xE1 for APP1, 0xFE for COM).
    public var marker: UInt8
    /// The offset of the body, after the two length bytes.
    public var bodyOffset: Int
    /// The body's length in bytes.
    public var bodyLength: Int

    /// The segment's name: `APP1`, `COM`, `DQT`, ...
    public var name: String {
        switch marker {
        case 0xE0...0xEF: "APP\(marker - 0xE0)"
        case 0xFE: "COM"
        case 0xDB: "DQT"
        case 0xC4: "DHT"
        case 0xDD: "DRI"
        case 0xCC: "DAC"
        case 0xC0...0xCF: "SOF\(marker - 0xC0)"
        default: "0x" + String(marker, radix: 16, uppercase: true)
        }
    }
}
