internal import CImagingShims
import CropGeometry
import Foundation

/// What a crop holds in memory at once, worked out from the header and the
/// plan before anything is allocated, so that ``DecodeLimits/maxMemory`` can
/// refuse it first.
///
/// CropKit's memory model, by path:
///
/// | path | held at once |
/// | --- | --- |
/// | an upright crop of a non-interlaced PNG or a sequential JPEG, written with libdeflate | a window of compressed bands (at most 24 MiB of rows, more only with many threads), whatever the crop's size |
/// | a turned crop (EXIF orientation) | the crop, plus the window |
/// | an interlaced PNG | the crop's rows (the crop itself when it spans the full width; else the full-width rows too) |
/// | a progressive (or multi-scan) JPEG | the whole frame's coefficients, 128 bytes a block, whatever the crop |
/// | written with zlib, or 1-, 2- or 4-bit samples | the crop and its compressed copy |
/// | a JPEG crop of a JPEG in the DCT domain | two block rows of the frame's coefficients (a progressive or multi-scan source: all of them) and the crop's |
/// | any other JPEG output | the decoded crop, its upright copy when turned, and the encoder's coefficients of it |
/// | a crop of a HEIF | the decoded crop, and each tile being decoded (one a core; a single-image HEIF is one tile) |
/// | a HEIC crop of a HEIF | an edge tile being encoded again, the HEVC encoder (24 MiB), the padded tiles being judged (one a core), and a 1 MiB copy buffer |
///
/// The decode's few full-width row buffers and the libraries' own tables
/// (a few MB) are not counted here. The program itself (its code, its
/// libraries, their tables: 19–28 MB for `cropkit`) is counted once, as
/// ``DecodeLimits/programMemory`` (30 MiB), when the need is checked, so
/// that ``DecodeLimits/maxMemory`` bounds the peak resident memory. A HEIC
/// output adds the HEVC encoder's own tables and threads (x265: measured
/// 10–21 MB over the tile it encodes; 24 MiB is counted).
public struct MemoryNeed: Hashable, Sendable {
    /// The bytes held at once.
    public var bytes: Int
    /// The parts, largest first, as "what: bytes" phrases.
    public var parts: [String]

    /// A need of nothing.
    init() {
        bytes = 0
        parts = []
    }

    /// A need of `bytes`, made of `parts`.
    public init(bytes: Int, parts: [String]) {
        self.bytes = bytes
        self.parts = parts
    }

    /// Adds `count` bytes for `what`.
    mutating func add(_ count: Int, _ what: String) {
        guard count > 0 else { return }
        let (sum, overflow) = bytes.addingReportingOverflow(count)
        bytes = overflow ? Int.max : sum
        parts.append("\(what) \(describeBytes(count))")
    }

    /// Refuses a need that, with `limits`' ``DecodeLimits/programMemory``,
    /// is over its ``DecodeLimits/maxMemory``; the need the error names
    /// holds the program's part.
    func check(_ limits: DecodeLimits) throws(ImagingError) {
        var peak = self
        peak.add(limits.programMemory, "the program and its libraries")
        guard peak.bytes <= limits.maxMemory else {
            throw .memoryExceeded(need: peak, limit: limits.maxMemory)
        }
    }
}

/// The bytes of the rows a releasing stream (`ck_stream_config.release`)
/// holds at most for `threads` threads: its window, and each thread's
/// filtered band and compressed chunk.
func streamingWindowBytes(threads: Int) -> Int {
    Int(CK_STREAM_WINDOW_BYTES) + max(1, threads) * 3 * Int(CK_STREAM_MAX_BAND_BYTES)
}

extension ImageSource {
    /// What decoding `rect` alone holds: the pixels (unless `streamed`, when
    /// a releasing stream takes them a window at a time) and what the
    /// format forces (an interlaced PNG's full-width rows, a progressive
    /// JPEG's coefficients).
    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed {
        reader.decodeMemory(rect, streamed: streamed)
    }
}

extension CropPlan {
    /// What this crop holds in memory at once, by the path its export takes
    /// (see ``MemoryNeed``); checked against the source's
    /// ``DecodeLimits/maxMemory`` before anything is decoded.
    public var memoryNeed: MemoryNeed {
        if let resampling {
            // The read rect decoded, turned upright (a copy), made direct
            // colour (at most 8 bytes a pixel), and the output rendered.
            let wide = source.pixelFormat.bitDepth == 16 ? 2 : 1
            var need = source.decodeMemory(stored, streamed: false)
            need.add(saturatingProduct(stored.width, stored.height, 4 * wide), "the upright region")
            need.add(
                saturatingProduct(
                    resampling.crop.outputSize.width, resampling.crop.outputSize.height, 4 * wide),
                "the resampled output")
            return need
        }
        switch format {
        case .png(let encoder):
            let depth = source.pixelFormat.bitDepth
            let streams = depth >= 8 && encoder.compressor.resolved == .libdeflate
            let upright = orientation == .up
            var need = source.decodeMemory(stored, streamed: streams && upright)
            let window = streamingWindowBytes(threads: encoder.threads)
            if streams {
                let channels = source.pixelFormat.colorType.channels
                let crop = saturatingProduct(
                    outputSize.width, outputSize.height, channels * (depth == 16 ? 2 : 1))
                need.add(min(crop, window), "the compression window")
            } else {
                // The crop packed or turned, filtered, then compressed whole.
                let crop = saturatingProduct(
                    outputSize.width, outputSize.height,
                    max(1, source.pixelFormat.colorType.channels * depth / 8))
                need.add(crop, "the crop to compress")
            }
            return need
        case .jpeg:
            if isDCTDomainCrop, let info = source.header as? JPEGFileInfo {
                // A single-scan file is decoded into a ring of two block
                // rows; a progressive or multi-scan one into the whole
                // frame's coefficients. Then the crop's own.
                var need = MemoryNeed()
                if info.progressive || info.firstScanComponents < info.components {
                    need.add(
                        saturatingProduct(info.coefficientBlocks, 128, 1),
                        "the \(info.progressive ? "progressive" : "multi-scan") frame's coefficients"
                    )
                } else {
                    let ringRows = min(info.height, 2 * info.blockGrid.height)
                    need.add(
                        saturatingProduct(info.coefficientBlocks, ringRows, 128)
                            / max(info.height, 1),
                        "two block rows of the frame's coefficients")
                }
                need.add(
                    saturatingProduct(stored.width, stored.height, 3 * 128) / 64 + 1,
                    "the crop's coefficients")
                return need
            }
            // Decoded whole while the encoder takes its rows and holds its
            // coefficients (it codes them in two passes).
            // A turned crop is copied upright first (measured: a turned
            // 2000x2000 PNG's JPEG peaks 8 MB over the upright one's).
            var need = source.decodeMemory(stored, streamed: false)
            if orientation != .up {
                need.add(
                    saturatingProduct(outputSize.width, outputSize.height, 3), "the upright copy")
            }
            need.add(
                saturatingProduct(outputSize.width, outputSize.height, 3),
                "the encoder's coefficients of the crop")
            return need
        case .heif:
            // Tiles are copied a MiB at a time; an edge tile is decoded to
            // its planes, copied once and encoded (x265 holds a few frames).
            // Tiles reaching beyond the canvas are decoded (one a core) to
            // judge their padding first.
            var need = MemoryNeed()
            if let info = source.header as? HEIFFileInfo {
                let layout = info.layout
                let tile = saturatingProduct(layout.tileWidth, layout.tileHeight, 16)
                need.add(tile, "an edge tile being encoded again")
                need.add(24 << 20, "the HEVC encoder (x265: its tables, threads and frames)")
                let decoded = saturatingProduct(
                    layout.tileWidth, layout.tileHeight, info.bitDepth > 8 ? 12 : 6)
                let threads = max(
                    1,
                    min(ProcessInfo.processInfo.activeProcessorCount, layout.columns + layout.rows))
                need.add(saturatingProduct(decoded, threads, 1), "the padded tiles being judged")
            }
            need.add(1 << 20, "the copy buffer")
            return need
        }
    }
}

/// `a·b·c`, or `Int.max` when it overflows.
func saturatingProduct(_ a: Int, _ b: Int, _ c: Int) -> Int {
    let (ab, first) = a.multipliedReportingOverflow(by: b)
    let (abc, second) = ab.multipliedReportingOverflow(by: c)
    return first || second ? Int.max : abc
}
