import CropImaging
import CropKitTestSupport

extension PNGEncoder {
    /// The same encoder with every band `rows` rows of a `rowBytes`-byte row.
    func withBands(ofRows rows: Int, rowBytes: Int) -> PNGEncoder {
        var encoder = self
        encoder.minimumBandBytes = rows * (rowBytes + 1)
        encoder.maximumBandBytes = rows * (rowBytes + 1)
        return encoder
    }
}

extension TestData {
    /// How many IDAT chunks the PNG file `bytes` holds (one a band).
    static func idatCount(_ bytes: [UInt8]) -> Int {
        var count = 0
        var offset = 8
        while offset + 8 <= bytes.count {
            let length =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2])
                << 8 | Int(bytes[offset + 3])
            if bytes[offset + 4..<offset + 8].elementsEqual("IDAT".utf8) { count += 1 }
            offset += 12 + length
        }
        return count
    }
}
