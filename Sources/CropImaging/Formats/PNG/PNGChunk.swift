/// One PNG chunk: its four-letter type and its data (without length or CRC).
public struct PNGChunk: Hashable, Sendable {
    /// The four-letter chunk type (`iCCP`, `tRNS`).
    public var type: String
    /// The chunk's data, without its length, type and CRC.
    public var data: [UInt8]

    /// A chunk of `type` holding `data`.
    public init(type: String, data: [UInt8]) {
        precondition(type.utf8.count == 4, "a PNG chunk type has four letters")
        self.type = type
        self.data = data
    }

    /// The chunks a crop carries over unchanged, in the order the source has
    /// them: the palette, transparency, and everything about colour and
    /// pixel size. None of them depends on the image's width or height.
    public static let carriedTypes: Set<String> = [
        "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "mDCV", "cLLI", "sBIT", "bKGD",
        "hIST",
        "pHYs",
    ]
}
