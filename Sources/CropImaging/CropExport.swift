import CropGeometry
import Dispatch

/// Cutting a rect out of an image file and writing it as PNG, losslessly.
public enum CropExport {
    /// What an export wrote.
    public struct Report: Sendable {
        public var output: String
        public var bytes: Int
        public var width: Int
        public var height: Int
        public var colorType: PNGColorType
        public var bitDepth: Int
        public var keptChunks: [String]
        public var droppedChunks: [String]
        public var warnings: [String]
        public var compressor: Compressor
        public var level: CompressionLevel
        /// How many bands libdeflate compressed at each level (empty with
        /// zlib): what ``CompressionLevel/automatic`` chose.
        public var bandLevels: [Int: Int]
    }

    /// Crops `stored` out of the PNG at `input`, turns the crop upright for
    /// `orientation`, and writes it to `output` atomically.
    ///
    /// The output keeps the input's colour type, bit depth, palette, tRNS and
    /// colour chunks; its pixels are the input's, moved, never changed.
    ///
    /// - Throws: ``ImagingError``; on any error no output file is left.
    public static func cropPNG(
        input: String, stored: PixelRect<StoredPixels>, orientation: EXIFOrientation = .up,
        output: String,
        encoder: PNGEncoder = PNGEncoder(), replacing: Bool = false,
        limits: DecodeLimits = .standard, info knownInfo: PNGFileInfo? = nil
    ) throws(ImagingError) -> Report {
        let info: PNGFileInfo
        if let knownInfo {
            info = knownInfo
        } else {
            info = try PNGFileInfo.read(path: input, limits: limits)
        }
        let writer = try AtomicFile.Writer(path: output, replacing: replacing, protecting: input)
        let rect = (stored.x, stored.y, stored.width, stored.height)
        let upright = orientation.orientedSize(stored.size)
        let written = try whileCheckingCRCs(of: info, path: input) {
            () throws(ImagingError) -> PNGEncoder.Written in
            try encoder.writeCrop(
                size: stored.size, orientation: orientation, colorType: info.colorType,
                bitDepth: info.bitDepth, chunks: info.carriedChunks, to: writer
            ) { rows throws(ImagingError) in
                try PNGDecoder.decode(
                    path: input, rect: rect, info: info, limits: limits, rows: rows)
            }
        }
        try writer.commit()
        return Report(
            output: output, bytes: written.bytes, width: upright.width, height: upright.height,
            colorType: info.colorType, bitDepth: info.bitDepth,
            keptChunks: info.carriedChunks.map(\.type),
            droppedChunks: info.droppedChunkTypes, warnings: info.warnings,
            compressor: encoder.compressor.resolved,
            level: encoder.level, bandLevels: written.bandLevels)
    }

    /// Crops `stored` out of the JPEG at `input`, turns the crop upright for
    /// `orientation` (the file's own, unless the caller overrides it), and
    /// writes it losslessly as an 8-bit gray or RGB PNG, atomically; an
    /// embedded ICC profile goes with it as iCCP.
    ///
    /// - Throws: ``ImagingError``; on any error no output file is left.
    public static func cropJPEG(
        input: String, info: JPEGFileInfo, stored: PixelRect<StoredPixels>,
        orientation: EXIFOrientation,
        output: String, encoder: PNGEncoder = PNGEncoder(), replacing: Bool = false,
        limits: DecodeLimits = .standard, maxScans: Int = JPEGDecoder.defaultMaxScans,
        lenient: Bool = false
    ) throws(ImagingError) -> Report {
        guard stored.x >= 0, stored.y >= 0, stored.width > 0, stored.height > 0,
            stored.maxX <= info.width, stored.maxY <= info.height
        else {
            throw ImagingError(
                .invalidRequest,
                "the crop \(stored) does not lie inside the \(info.width)x\(info.height) image")
        }
        let writer = try AtomicFile.Writer(path: output, replacing: replacing, protecting: input)
        var chunks: [PNGChunk] = []
        if let profile = info.iccProfile {
            chunks = [
                try ICCProfile.iCCPChunk(
                    profile, name: ICCProfile.description(of: profile) ?? "ICC profile")
            ]
        }
        let colorType: PNGColorType = info.components == 1 ? .gray : .rgb
        let rect = (stored.x, stored.y, stored.width, stored.height)
        let upright = orientation.orientedSize(stored.size)
        var warnings: [String] = []
        let written = try encoder.writeCrop(
            size: stored.size, orientation: orientation, colorType: colorType, bitDepth: 8,
            chunks: chunks, to: writer
        ) { rows throws(ImagingError) in
            let decoded = try JPEGDecoder.decode(
                path: input, rect: rect, info: info, limits: limits, maxScans: maxScans,
                lenient: lenient, rows: rows)
            warnings = decoded.warnings
            return decoded.image
        }
        try writer.commit()
        if let profile = info.iccProfile, ICCProfile.description(of: profile) == nil {
            warnings.append("the ICC profile has no description CropKit can read")
        }
        return Report(
            output: output, bytes: written.bytes, width: upright.width, height: upright.height,
            colorType: colorType, bitDepth: 8,
            keptChunks: chunks.map(\.type), droppedChunks: [], warnings: warnings,
            compressor: encoder.compressor.resolved, level: encoder.level,
            bandLevels: written.bandLevels)
    }

    /// Runs `body` while another thread checks the image data CRCs that
    /// `info`'s read deferred (none: just runs it). A bad CRC is thrown in
    /// preference to `body`'s own error, as a full read would have thrown it
    /// first; the caller commits its output only after this returns.
    static func whileCheckingCRCs<T>(
        of info: PNGFileInfo, path: String, _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        guard !info.deferredCRCs.isEmpty else { return try body() }
        let outcome = CRCOutcome()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            do throws(ImagingError) {
                try info.checkDeferredCRCs(path: path)
            } catch {
                outcome.failure = error
            }
            done.signal()
        }
        let result: Result<T, ImagingError>
        do throws(ImagingError) {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        done.wait()
        if let failure = outcome.failure { throw failure }
        return try result.get()
    }

    /// The image formats CropKit recognises by their first bytes.
    public enum Format: String, Sendable {
        case png
        case jpeg
    }

    /// The format of the file at `path`, from its signature.
    ///
    /// - Throws: ``ImagingError`` `.cannotOpen`, or `.unsupported` for an
    ///   unknown format.
    public static func format(of path: String) throws(ImagingError) -> Format {
        let file = try BinaryFile(path: path)
        guard let head = file.read(min(8, file.size)), !head.isEmpty else {
            throw ImagingError(.corrupt, "'\(path)' is empty")
        }
        if head.starts(with: [137, 80, 78, 71]) { return .png }
        if head.starts(with: [0xFF, 0xD8]) { return .jpeg }
        throw ImagingError(.unsupported, "'\(path)' is neither PNG nor JPEG (unknown signature)")
    }
}

/// What the CRC thread found; written before its semaphore is signalled and
/// read only after the wait, so no lock is needed.
private final class CRCOutcome: @unchecked Sendable {
    var failure: ImagingError?
}
