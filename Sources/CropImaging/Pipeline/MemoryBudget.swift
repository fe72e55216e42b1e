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

    /// Adds every part of `other`.
    mutating func add(_ other: MemoryNeed) {
        let (sum, overflow) = bytes.addingReportingOverflow(other.bytes)
        bytes = overflow ? Int.max : sum
        parts += other.parts
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
    public var memoryNeed: MemoryNeed { decision.memory }

    /// The writer's decision for this plan, with what a resampled crop
    /// holds when it is one.
    func decide() -> WriterDecision {
        var decision = format.writer.decide(self)
        if let resampling {
            decision.memory = resampledMemoryNeed(resampling)
            decision.memory.add(decision.resampledExtra)
        }
        return decision
    }

    /// What a turned, resized or circled crop holds at once: the read rect
    /// decoded, turned upright (a copy), made direct colour (at most 8
    /// bytes a pixel), and the output rendered.
    private func resampledMemoryNeed(_ resampling: ResamplePlan) -> MemoryNeed {
        let wide = source.pixelFormat.bitDepth == 16 ? 2 : 1
        var need = source.decodeMemory(stored, streamed: false)
        need.add(saturatingProduct(stored.width, stored.height, 4 * wide), "the upright region")
        need.add(
            saturatingProduct(
                resampling.crop.outputSize.width, resampling.crop.outputSize.height, 4 * wide),
            "the resampled output")
        return need
    }
}

/// `a·b·c`, or `Int.max` when it overflows.
func saturatingProduct(_ a: Int, _ b: Int, _ c: Int) -> Int {
    let (ab, first) = a.multipliedReportingOverflow(by: b)
    let (abc, second) = ab.multipliedReportingOverflow(by: c)
    return first || second ? Int.max : abc
}
