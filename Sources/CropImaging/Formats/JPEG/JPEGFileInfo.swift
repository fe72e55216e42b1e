import CropGeometry

/// What a JPEG file holds, read from its markers up to the first scan,
/// without decoding: frame size and kind, EXIF orientation, ICC profile.
public struct JPEGFileInfo: Sendable {
    /// The frame's width, as its SOF marker declares it.
    public var width: Int
    /// The frame's height, as its SOF marker declares it.
    public var height: Int
    /// The number of colour components (1 gray, 3 YCbCr or RGB, 4 CMYK).
    public var components: Int
    /// The frame kind (SOF marker): baseline, extended, progressive, with
    /// Huffman or arithmetic coding.
    public var frame: String
    /// Whether the frame is progressive (SOF2).
    public var progressive: Bool
    /// Each component's horizontal and vertical sampling factors.
    public var horizontalSampling: [Int]
    /// Each component's vertical sampling factor.
    public var verticalSampling: [Int]
    /// The EXIF orientation (1 when absent or invalid).
    public var orientation: EXIFOrientation
    /// An embedded ICC profile, reassembled from its APP2 segments.
    public var iccProfile: [UInt8]?
    /// Why the APP2 ICC_PROFILE segments are not a profile a crop carries
    /// (``ICCProfile/problem(in:)``, or some segments missing), when they
    /// are not; ``iccProfile`` is then `nil`.
    public var profileProblem: String? = nil
    /// The Adobe APP14 transform (0: none, 1: YCbCr, 2: YCCK), if present.
    public var adobeTransform: Int?
    /// The file's size in bytes.
    public var fileSize: Int
    /// Problems that did not stop the read (an invalid orientation means 1).
    public var warnings: [String]
    /// What a progressive file's scans cover, summed from their headers
    /// before anything is decoded; `nil` for a sequential file.
    public var scanWork: ScanWork? = nil
    /// Each component's identifier, as scans name them.
    var componentIDs: [Int] = []
    /// Each component's quantization table slot (0 to 3), from the frame.
    public var componentQuantTables: [Int] = []
    /// The quantization tables defined before the first scan, by slot: 64
    /// values each, in natural (row by row) order.
    public var quantTables: [Int: [UInt16]] = [:]
    /// The restart interval in MCUs (DRI), 0 when there is none.
    public var restartInterval = 0
    /// Whether the frame is arithmetic-coded (SOF9, SOF10).
    public var arithmetic: Bool { frame.hasPrefix("arithmetic") }
    /// Every marker segment before the first scan, in file order: where its
    /// body lies, for the metadata an output keeps or drops.
    public var segments: [JPEGSegment] = []
    /// The iMCU: the block grid a lossless crop must start on, 8 times the
    /// largest sampling factors (8x8 gray, 16x16 for 4:2:0).
    public var blockGrid: PixelSize<StoredPixels> {
        PixelSize(
            width: 8 * max(horizontalSampling.max() ?? 1, 1),
            height: 8 * max(verticalSampling.max() ?? 1, 1))
    }
    /// How many components the first scan holds: fewer than the frame's
    /// means a multi-scan file, decoded through whole-frame coefficients.
    var firstScanComponents = 0

    /// The blocks of coefficients libjpeg keeps for the whole frame when it
    /// must (progressive and multi-scan files): each component's blocks,
    /// rounded up to whole MCUs as libjpeg allocates them.
    var coefficientBlocks: Int {
        let maxH = max(horizontalSampling.max() ?? 1, 1)
        let maxV = max(verticalSampling.max() ?? 1, 1)
        return zip(horizontalSampling, verticalSampling).reduce(0) { sum, factors in
            let (h, v) = (max(factors.0, 1), max(factors.1, 1))
            let wide = (width * h + 8 * maxH - 1) / (8 * maxH)
            let high = (height * v + 8 * maxV - 1) / (8 * maxV)
            return sum + (wide + h - 1) / h * h * ((high + v - 1) / v * v)
        }
    }

    /// The colour model a crop is written in: gray for one component, RGB
    /// for every other (CMYK and YCCK are converted).
    public var colorSpace: String {
        switch components {
        case 1: "gray"
        case 3: adobeTransform == 0 ? "rgb" : "ycbcr"
        case 4: adobeTransform == 2 ? "ycck" : "cmyk"
        default: "unknown"
        }
    }
}

extension JPEGFileInfo {
    /// Reads the markers of the JPEG at `path` up to its first scan.
    ///
    /// Checked here, before libjpeg allocates anything: the SOI, each
    /// segment's length against the file, a supported frame (8-bit; not
    /// lossless, hierarchical or 12-bit), the size against `limits`.
    ///
    /// - Throws: ``ImagingError`` with `.corrupt`, `.unsupported`, `.limit`.
    public static func read(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> JPEGFileInfo
    {
        try read(ImageInput(path: path), limits: limits)
    }

    /// ``read(path:limits:)`` from an input already open.
    package static func read(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError)
        -> JPEGFileInfo
    {
        let file = InputCursor(input)
        try limits.check(fileSize: file.size)
        guard let soi = try file.read(2), soi == [0xFF, 0xD8] else {
            throw .corrupt(
                format: .jpeg,
                detail: "'\(input.name)' is not a JPEG file (it does not start with SOI)")
        }
        var info = JPEGFileInfo(
            width: 0, height: 0, components: 0, frame: "", progressive: false,
            horizontalSampling: [],
            verticalSampling: [], orientation: .up, iccProfile: nil, adobeTransform: nil,
            fileSize: file.size,
            warnings: [])
        var iccPieces: [Int: [UInt8]] = [:]
        var iccCount = 0
        var metadataBytes = 0
        var sawFrame = false
        var sawExif = false
        while true {
            // Markers may be padded with any number of 0xFF bytes.
            guard var byte = try file.read(1)?.first else {
                throw ImagingError.corrupt(
                    format: .jpeg, detail: "JPEG file ends before its first scan (truncated)")
            }
            guard byte == 0xFF else {
                throw ImagingError.corrupt(
                    format: .jpeg,
                    detail: "JPEG data at byte \(file.offset - 1) is not a marker (corrupt)")
            }
            while byte == 0xFF {
                guard let next = try file.read(1)?.first else {
                    throw ImagingError.corrupt(
                        format: .jpeg, detail: "JPEG file ends inside a marker (truncated)")
                }
                byte = next
            }
            let marker = byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }
            if marker == 0xD9 {
                throw ImagingError.corrupt(
                    format: .jpeg, detail: "JPEG file ends (EOI) before any image data")
            }
            guard let lengthBytes = try file.read(2) else {
                throw ImagingError.corrupt(
                    format: .jpeg, detail: "JPEG file ends inside a segment header (truncated)")
            }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, length - 2 <= file.remaining else {
                throw ImagingError.corrupt(
                    format: .jpeg,
                    detail:
                        "JPEG segment 0x\(String(marker, radix: 16, uppercase: true)) declares \(length) bytes, the file has \(file.remaining + 2) left (truncated or corrupt)"
                )
            }
            let bodyLength = length - 2
            info.segments.append(
                JPEGSegment(marker: marker, bodyOffset: file.offset, bodyLength: bodyLength))
            switch marker {
            case 0xDA:  // SOS: the metadata ends here.
                guard sawFrame else {
                    throw ImagingError.corrupt(
                        format: .jpeg, detail: "JPEG scan starts before a frame header")
                }
                if iccCount > 0 {
                    if (1...iccCount).allSatisfy({ iccPieces[$0] != nil }) {
                        let profile = (1...iccCount).flatMap { iccPieces[$0] ?? [] }
                        info.profileProblem = ICCProfile.problem(in: profile)
                        if info.profileProblem == nil { info.iccProfile = profile }
                    } else {
                        info.profileProblem =
                            "an ICC profile missing some of its \(iccCount) segments"
                        info.warnings.append(
                            "JPEG ICC profile is missing some of its \(iccCount) segments; ignored")
                    }
                }
                guard let scan = try file.read(bodyLength), let count = scan.first else {
                    throw ImagingError.corrupt(
                        format: .jpeg, detail: "JPEG scan header is truncated")
                }
                info.firstScanComponents = Int(count)
                if info.progressive {
                    info.scanWork = try ScanWork.sum(
                        file, firstScanHeader: scan, frame: info, limits: limits)
                }
                return info
            case 0xC0, 0xC1, 0xC2, 0xC9, 0xCA:
                guard let body = try file.read(bodyLength), body.count >= 6 else {
                    throw ImagingError.corrupt(
                        format: .jpeg, detail: "JPEG frame header is truncated")
                }
                try info.parseFrame(marker: marker, body: body, limits: limits)
                sawFrame = true
            case 0xDB:  // DQT: one or more tables.
                guard let body = try file.read(bodyLength) else {
                    throw ImagingError.corrupt(
                        format: .jpeg, detail: "JPEG DQT segment is truncated")
                }
                try info.parseQuantTables(body)
            case 0xDD:  // DRI
                guard let body = try file.read(bodyLength), body.count >= 2 else {
                    throw ImagingError.corrupt(
                        format: .jpeg, detail: "JPEG DRI segment is truncated")
                }
                info.restartInterval = Int(body[0]) << 8 | Int(body[1])
            case 0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF:
                let kind =
                    [0xC3: "lossless", 0xCB: "lossless arithmetic"][marker]
                    ?? "hierarchical (differential)"
                throw ImagingError.unsupported(
                    format: .jpeg,
                    detail:
                        "JPEG is \(kind) (SOF\(marker - 0xC0)), which this libjpeg-turbo does not decode"
                )
            case 0xE1, 0xE2, 0xEE:
                metadataBytes += bodyLength
                guard metadataBytes <= limits.maxMetadataBytes else {
                    throw .limitExceeded(
                        .metadataBytes, limit: limits.maxMetadataBytes, actual: metadataBytes)
                }
                guard let body = try file.read(bodyLength) else {
                    throw ImagingError.corrupt(format: .jpeg, detail: "JPEG segment is truncated")
                }
                if marker == 0xE1, body.starts(with: Array("Exif\0\0".utf8)) {
                    // The first EXIF segment counts, as Pillow and exiftool
                    // read it; a second one (an editor's leftover) is named.
                    if sawExif {
                        info.warnings.append(
                            "JPEG has a second EXIF segment (APP1); the first one's orientation is used"
                        )
                    } else {
                        info.readOrientation(exif: Array(body[6...]))
                    }
                    sawExif = true
                } else if marker == 0xE2, body.starts(with: Array("ICC_PROFILE\0".utf8)),
                    body.count >= 14
                {
                    let sequence = Int(body[12])
                    let count = Int(body[13])
                    if sequence >= 1, sequence <= count {
                        iccCount = max(iccCount, count)
                        iccPieces[sequence] = Array(body[14...])
                    }
                } else if marker == 0xEE, body.starts(with: Array("Adobe".utf8)), body.count >= 12 {
                    info.adobeTransform = Int(body[11])
                }
            default:
                guard file.skip(bodyLength) else {
                    throw ImagingError.corrupt(format: .jpeg, detail: "JPEG segment is truncated")
                }
            }
        }
    }

    /// The tables of one DQT segment, turned from zigzag into natural order.
    private mutating func parseQuantTables(_ body: [UInt8]) throws(ImagingError) {
        var at = 0
        while at < body.count {
            let precision = Int(body[at] >> 4)
            let slot = Int(body[at] & 0x0F)
            let size = precision == 0 ? 64 : 128
            guard precision <= 1, slot <= 3, at + 1 + size <= body.count else {
                throw ImagingError.corrupt(format: .jpeg, detail: "JPEG DQT segment is malformed")
            }
            var table = [UInt16](repeating: 1, count: 64)
            for k in 0..<64 {
                let value =
                    precision == 0
                    ? UInt16(body[at + 1 + k])
                    : UInt16(body[at + 1 + 2 * k]) << 8 | UInt16(body[at + 2 + 2 * k])
                table[Self.zigzag[k]] = max(value, 1)
            }
            quantTables[slot] = table
            at += 1 + size
        }
    }

    /// The natural-order index of each zigzag position.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,
        20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    private mutating func parseFrame(marker: UInt8, body: [UInt8], limits: DecodeLimits)
        throws(ImagingError)
    {
        let precision = Int(body[0])
        guard precision == 8 else {
            throw ImagingError.unsupported(
                format: .jpeg,
                detail: "JPEG has \(precision)-bit samples; only 8-bit JPEG is supported")
        }
        let height = Int(body[1]) << 8 | Int(body[2])
        let width = Int(body[3]) << 8 | Int(body[4])
        let components = Int(body[5])
        guard width > 0, height > 0 else {
            let detail = "JPEG frame size \(width)x\(height) is not usable"
            // Height 0 is the DNL marker's way of giving it later, which
            // libjpeg does not support.
            throw height == 0
                ? .unsupported(format: .jpeg, detail: detail)
                : .corrupt(format: .jpeg, detail: detail)
        }
        guard [1, 3, 4].contains(components), body.count >= 6 + 3 * components else {
            throw ImagingError.unsupported(
                format: .jpeg, detail: "JPEG has \(components) components; 1, 3 or 4 are supported")
        }
        try limits.check(width: width, height: height)
        self.width = width
        self.height = height
        self.components = components
        componentIDs = (0..<components).map { Int(body[6 + 3 * $0]) }
        horizontalSampling = (0..<components).map { Int(body[7 + 3 * $0] >> 4) }
        componentQuantTables = (0..<components).map { Int(body[8 + 3 * $0] & 0x03) }
        verticalSampling = (0..<components).map { Int(body[7 + 3 * $0] & 0x0F) }
        progressive = marker == 0xC2 || marker == 0xCA
        frame =
            [
                0xC0: "baseline", 0xC1: "extended", 0xC2: "progressive", 0xC9: "arithmetic",
                0xCA: "arithmetic progressive",
            ][
                marker] ?? "unknown"
    }

    /// Orientation from the TIFF structure of an EXIF segment (tag 0x0112 in
    /// IFD0), either byte order; anything invalid means 1, with a warning.
    private mutating func readOrientation(exif tiff: [UInt8]) {
        guard tiff.count >= 8 else {
            warnings.append("EXIF segment too short; orientation 1")
            return
        }
        let little = tiff[0] == 0x49 && tiff[1] == 0x49
        guard little || (tiff[0] == 0x4D && tiff[1] == 0x4D) else {
            warnings.append("EXIF has no valid byte order; orientation 1")
            return
        }
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= tiff.count else { return nil }
            return little
                ? Int(tiff[i]) | Int(tiff[i + 1]) << 8 : Int(tiff[i]) << 8 | Int(tiff[i + 1])
        }
        func u32(_ i: Int) -> Int? {
            guard let a = u16(i), let b = u16(i + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else {
            warnings.append("EXIF structure is invalid; orientation 1")
            return
        }
        for entry in 0..<count {
            let at = ifd + 2 + 12 * entry
            guard let tag = u16(at) else { break }
            guard tag == 0x0112 else { continue }
            // SHORT, as the EXIF standard says; LONG is accepted too, as
            // Pillow accepts it (some writers use it; the value is the same).
            let type = u16(at + 2)
            guard let value = type == 3 ? u16(at + 8) : type == 4 ? u32(at + 8) : nil else {
                warnings.append("EXIF orientation has an invalid type; orientation 1")
                return
            }
            guard let orientation = EXIFOrientation(rawValue: value) else {
                warnings.append("EXIF orientation \(value) is not 1 to 8; orientation 1")
                return
            }
            self.orientation = orientation
            return
        }
    }
}

extension JPEGFileInfo {
    /// The offset just after the EOI marker that ends the image, found by
    /// walking from the first scan over entropy-coded data and the segments
    /// between scans; `nil` when the file ends first. What follows it
    /// (MPF secondary images, editor leftovers) is not part of the image.
    func endOfImage(in input: ImageInput) throws(ImagingError) -> Int? {
        guard let scan = segments.first(where: { $0.marker == 0xDA }) else { return nil }
        let cursor = InputCursor(input)
        guard cursor.skip(scan.bodyOffset + scan.bodyLength) else { return nil }
        while let marker = try cursor.nextJPEGMarker() {
            if marker == 0xD9 { return cursor.offset }
            if marker == 0xD8 || marker == 0x01 { continue }
            guard let length = try cursor.read(2) else { return nil }
            guard cursor.skip(max(Int(length[0]) << 8 | Int(length[1]), 2) - 2) else { return nil }
        }
        return nil
    }
}
