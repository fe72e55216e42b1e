internal import CImagingShims

/// What a PNG file holds, read from its chunk list without decoding pixels.
public struct PNGFileInfo: Hashable, Sendable {
    /// The width IHDR declares.
    public var width: Int
    /// The height IHDR declares.
    public var height: Int
    /// The bit depth IHDR declares.
    public var bitDepth: Int
    /// The colour type IHDR declares.
    public var colorType: ColorType
    /// Whether the image is Adam7-interlaced.
    public var interlaced: Bool
    /// The chunks a crop carries, in file order, each with a correct CRC.
    public var carriedChunks: [PNGChunk]
    /// The types of the other ancillary chunks, which a crop drops.
    public var droppedChunkTypes: [String]
    /// Why each carried chunk type that breaks the specification was
    /// dropped (``PNGChunk/problem(colorType:bitDepth:paletteEntries:metadataLimit:)``).
    var chunkProblems: [String: String] = [:]
    /// The file's size in bytes.
    public var fileSize: Int
    /// Problems that did not stop the read (a carried chunk with a bad CRC is
    /// dropped, a missing IEND is tolerated).
    public var warnings: [String]
    /// Where each image data chunk's data lies, in file order (what an
    /// inflater other than libpng's reads).
    package var imageData: [DataSpan] = []
    /// The offset just after the IEND chunk, when there is one: what
    /// follows is not part of the image.
    public var endOfImage: Int?
    /// The image data chunks whose CRCs a deferred read left to
    /// ``checkDeferredCRCs(in:)``; empty after a full read.
    package var deferredCRCs: [DeferredCRC] = []

    /// Where one IDAT chunk's data lies in the file.
    package struct DataSpan: Hashable, Sendable {
        var offset: Int
        var length: Int
    }

    /// An IDAT chunk whose CRC is yet to be checked.
    package struct DeferredCRC: Hashable, Sendable {
        var chunkOffset: Int
        var length: Int
        var expected: UInt32
    }
}

private let pngSignature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

extension PNGFileInfo {
    /// Reads the chunk list of the PNG at `path`, checking its structure and
    /// the limits before anything large is allocated.
    ///
    /// Checked here: the signature; IHDR first, 13 bytes, with a valid colour
    /// type, bit depth and methods; every chunk's declared length against the
    /// bytes the file has; the CRC of every chunk that will be copied; a PLTE
    /// for palette images; at least one IDAT; and `limits`.
    ///
    /// - Throws: ``ImagingError`` with `.corrupt`, `.limit` or `.cannotOpen`.
    /// - Complexity: O(number of chunks) reads and seeks; reads only the
    ///   carried chunks' data.
    public static func read(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> PNGFileInfo
    {
        try read(ImageInput(path: path), limits: limits, deferringDataCRCs: false)
    }

    /// ``read(path:limits:)`` from an input already open; with
    /// `deferringDataCRCs`, the image data chunks' CRCs are only recorded,
    /// to be checked by ``checkDeferredCRCs(in:)`` while the crop is
    /// decoded, off the critical path (reading a 30 MB file's IDAT chunks
    /// takes about 8 ms).
    package static func read(_ input: ImageInput, limits: DecodeLimits, deferringDataCRCs: Bool)
        throws(ImagingError) -> PNGFileInfo
    {
        let file = InputCursor(input)
        try limits.check(fileSize: file.size)
        guard file.size > 0 else {
            throw .corrupt(format: .png, detail: "'\(input.name)' is empty, not a PNG file")
        }
        guard let signature = try file.read(8), signature == pngSignature else {
            throw .corrupt(
                format: .png,
                detail:
                    "'\(input.name)' is not a PNG file (its first 8 bytes are not the PNG signature)"
            )
        }
        var info = PNGFileInfo(
            width: 0, height: 0, bitDepth: 0, colorType: .gray, interlaced: false,
            carriedChunks: [],
            droppedChunkTypes: [], fileSize: file.size, warnings: [])
        var sawHeader = false
        var sawData = false
        var sawEnd = false
        var metadataBytes = 0
        var lastType = ""
        while !sawEnd {
            let chunkOffset = file.offset
            guard file.remaining > 0 else {
                guard sawData else {
                    throw ImagingError.corrupt(
                        format: .png,
                        detail: "PNG file ends after \(file.size) bytes with no image data (IDAT)"
                    )
                }
                info.warnings.append("PNG file has no IEND chunk")
                break
            }
            // After image data, a truncated tail is left to libpng: it fails
            // only if the rows that the crop needs are missing.
            guard file.remaining >= 8 || !sawData, let header = try file.read(8) else {
                guard sawData else {
                    throw ImagingError.corrupt(
                        format: .png,
                        detail:
                            "PNG file is truncated: it ends inside a chunk header at byte \(chunkOffset)"
                    )
                }
                info.warnings.append(
                    "PNG file is truncated at byte \(chunkOffset), after image data")
                break
            }
            let length = Int(header.bigEndianUInt32(at: 0))
            let typeBytes = Array(header[4..<8])
            guard typeBytes.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
                throw ImagingError.corrupt(
                    format: .png,
                    detail: "PNG chunk at byte \(chunkOffset) has an invalid type \(typeBytes)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            defer { lastType = type }
            guard length <= Int(Int32.max) else {
                throw ImagingError.corrupt(
                    format: .png,
                    detail:
                        "PNG chunk \(type) at byte \(chunkOffset) declares \(length) bytes, over the format's 2^31-1"
                )
            }
            guard length + 4 <= file.remaining else {
                if sawData && (type == "IDAT" || type == "IEND") {
                    info.warnings.append(
                        "PNG file is truncated inside chunk \(type) at byte \(chunkOffset)")
                    break
                }
                throw ImagingError.corrupt(
                    format: .png,
                    detail:
                        "PNG chunk \(type) at byte \(chunkOffset) declares \(describeBytes(length)), the file has only \(describeBytes(max(0, file.remaining - 4))) left (truncated or corrupt)"
                )
            }
            if !sawHeader {
                guard type == "IHDR", length == 13 else {
                    throw ImagingError.corrupt(
                        format: .png,
                        detail:
                            "PNG file does not start with a 13-byte IHDR chunk (found \(type), \(length) bytes)"
                    )
                }
            }
            switch type {
            case "IHDR":
                guard !sawHeader else {
                    throw ImagingError.corrupt(
                        format: .png, detail: "PNG file has a second IHDR chunk")
                }
                let data = try readChecked(
                    file, type: type, length: length, chunkOffset: chunkOffset, critical: true)
                try info.parseHeader(data, limits: limits)
                sawHeader = true
            case "IDAT":
                // Only the first run of IDAT chunks is image data, as libpng
                // reads it: one after another chunk is not.
                if !sawData || lastType == "IDAT" {
                    info.imageData.append(DataSpan(offset: chunkOffset + 8, length: length))
                }
                sawData = true
                // Checked here, not only by libpng: a crop that stops decoding
                // early would otherwise never look at the later chunks.
                if deferringDataCRCs {
                    guard file.skip(length), let crcBytes = try file.read(4) else {
                        throw ImagingError.corrupt(
                            format: .png, detail: "PNG file is truncated inside chunk \(type)")
                    }
                    info.deferredCRCs.append(
                        DeferredCRC(
                            chunkOffset: chunkOffset, length: length,
                            expected: crcBytes.bigEndianUInt32(at: 0)))
                } else {
                    try checkCRC(file, type: type, length: length, chunkOffset: chunkOffset)
                }
            case "IEND":
                sawEnd = true
                guard file.skip(length + 4) else {
                    throw ImagingError.corrupt(
                        format: .png, detail: "PNG file is truncated inside IEND")
                }
                info.endOfImage = file.offset
            case _ where PNGChunk.carriedTypes.contains(type) && !sawData:
                guard length <= limits.maxChunkBytes else {
                    throw .limitExceeded(.chunkBytes, limit: limits.maxChunkBytes, actual: length)
                }
                metadataBytes += length
                guard metadataBytes <= limits.maxMetadataBytes else {
                    throw .limitExceeded(
                        .metadataBytes, limit: limits.maxMetadataBytes, actual: metadataBytes)
                }
                let critical = type == "PLTE"
                do throws(ImagingError) {
                    let data = try readChecked(
                        file, type: type, length: length, chunkOffset: chunkOffset,
                        critical: critical)
                    if type == "PLTE" {
                        guard length % 3 == 0, length > 0, length <= 768 else {
                            throw ImagingError.corrupt(
                                format: .png,
                                detail:
                                    "PNG palette (PLTE) has \(length) bytes, not 1 to 256 RGB entries"
                            )
                        }
                    }
                    info.carriedChunks.append(PNGChunk(type: type, data: data))
                } catch {
                    guard error.code == .corrupt, !critical else { throw error }
                    info.warnings.append(error.description + "; the chunk was dropped")
                }
            default:
                if type.first?.isUppercase == true && type != "PLTE" {
                    throw ImagingError.unsupported(
                        format: .png, detail: "PNG file has an unknown critical chunk \(type)")
                }
                if type != "PLTE" { info.droppedChunkTypes.append(type) }
                guard file.skip(length + 4) else {
                    throw ImagingError.corrupt(
                        format: .png, detail: "PNG file is truncated inside \(type)")
                }
            }
        }
        guard sawData else {
            throw ImagingError.corrupt(
                format: .png, detail: "PNG file has no image data (IDAT chunk)")
        }
        if info.colorType == .palette && !info.carriedChunks.contains(where: { $0.type == "PLTE" })
        {
            throw ImagingError.corrupt(
                format: .png,
                detail: "PNG palette image has no palette (PLTE) before its image data")
        }
        info.dropInvalidChunks(metadataLimit: limits.maxChunkBytes)
        return info
    }

    /// Checks the CRCs a deferred read recorded, in file order, reading
    /// `input` (the file the chunk list was read from) by position.
    ///
    /// - Throws: ``ImagingError`` `.corrupt` for the first bad one, with the
    ///   message a full read gives.
    package func checkDeferredCRCs(in input: ImageInput) throws(ImagingError) {
        guard !deferredCRCs.isEmpty else { return }
        let file = InputCursor(input, bufferSize: 1 << 18)
        for chunk in deferredCRCs {
            guard file.skip(chunk.chunkOffset + 8 - file.offset) else {
                throw .corrupt(format: .png, detail: "PNG file is truncated inside chunk IDAT")
            }
            try checkCRC(file, type: "IDAT", length: chunk.length, chunkOffset: chunk.chunkOffset)
        }
    }

    /// Drops the carried chunks that break the PNG specification (a 1-byte
    /// tRNS, a gAMA of zero, an iCCP that does not inflate, ...), with a
    /// warning each: a crop must open in every decoder, and Pillow refuses
    /// such files.
    private mutating func dropInvalidChunks(metadataLimit: Int) {
        let paletteEntries = (carriedChunks.first { $0.type == "PLTE" }?.data.count ?? 0) / 3
        // The specification's order around PLTE: libpng ignores a chunk out
        // of place, and so must a crop's reader.
        let palette = carriedChunks.firstIndex { $0.type == "PLTE" }
        let afterPalette: Set<String> = ["tRNS", "bKGD", "hIST"]
        let beforePalette: Set<String> = [
            "gAMA", "cHRM", "iCCP", "sRGB", "sBIT", "cICP", "mDCV", "cLLI",
        ]
        carriedChunks = carriedChunks.enumerated().filter { index, chunk in
            var problem: String?
            if let palette, afterPalette.contains(chunk.type), index < palette {
                problem = "comes before PLTE"
            } else if let palette, beforePalette.contains(chunk.type), index > palette {
                problem = "comes after PLTE"
            } else if chunk.type != "PLTE" {
                problem = chunk.problem(
                    colorType: colorType, bitDepth: bitDepth, paletteEntries: paletteEntries,
                    metadataLimit: metadataLimit)
            }
            guard let problem else { return true }
            warnings.append("PNG chunk \(chunk.type) \(problem); the chunk was dropped")
            droppedChunkTypes.append(chunk.type)
            chunkProblems[chunk.type] = chunkProblems[chunk.type] ?? problem
            return false
        }.map(\.element)
    }

    private mutating func parseHeader(_ data: [UInt8], limits: DecodeLimits) throws(ImagingError) {
        let width = Int(data.bigEndianUInt32(at: 0))
        let height = Int(data.bigEndianUInt32(at: 4))
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw ImagingError.corrupt(
                format: .png,
                detail:
                    "PNG image size \(width)x\(height) is invalid (each side must be 1 to 2^31-1)")
        }
        guard let colorType = ColorType(rawValue: data[9]) else {
            throw ImagingError.corrupt(
                format: .png,
                detail: "PNG colour type \(data[9]) is invalid (allowed: 0, 2, 3, 4, 6)")
        }
        let bitDepth = Int(data[8])
        guard colorType.allowedBitDepths.contains(bitDepth) else {
            throw ImagingError.corrupt(
                format: .png,
                detail: "PNG bit depth \(bitDepth) is invalid for colour type \(colorType.name)")
        }
        guard data[10] == 0, data[11] == 0, data[12] <= 1 else {
            throw ImagingError.corrupt(
                format: .png,
                detail: "PNG header has an unknown compression, filter or interlace method")
        }
        try limits.check(width: width, height: height)
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.interlaced = data[12] == 1
    }
}

/// Checks a chunk's CRC by streaming its data through crc32, without keeping it.
private func checkCRC(_ file: InputCursor, type: String, length: Int, chunkOffset: Int)
    throws(ImagingError)
{
    var crc = ck_crc32(0, Array(type.utf8), 4)
    guard
        try file.forEachPiece(of: length, { crc = ck_crc32(crc, $0.baseAddress, $0.count) }),
        let crcBytes = try file.read(4)
    else {
        throw .corrupt(format: .png, detail: "PNG file is truncated inside chunk \(type)")
    }
    guard crc == crcBytes.bigEndianUInt32(at: 0) else {
        throw .corrupt(
            format: .png,
            detail: "PNG chunk \(type) at byte \(chunkOffset) has a bad CRC (the file is corrupt)")
    }
}

/// Reads a chunk's data and checks its CRC.
private func readChecked(
    _ file: InputCursor, type: String, length: Int, chunkOffset: Int, critical: Bool
) throws(ImagingError) -> [UInt8] {
    guard let data = try file.read(length), let crcBytes = try file.read(4) else {
        throw ImagingError.corrupt(
            format: .png, detail: "PNG file is truncated inside chunk \(type)")
    }
    var crc = ck_crc32(0, Array(type.utf8), 4)
    crc = data.withUnsafeBufferPointer { ck_crc32(crc, $0.baseAddress, $0.count) }
    guard crc == crcBytes.bigEndianUInt32(at: 0) else {
        throw ImagingError.corrupt(
            format: .png,
            detail: "PNG chunk \(type) at byte \(chunkOffset) has a bad CRC (the file is corrupt)"
        )
    }
    return data
}
