internal import CImagingShims
import CropGeometry
import CropRecords
import Foundation

/// How a JPEG crop was made, for the report.
public struct JPEGWriteReport: Hashable, Sendable {
    /// Lossless, lossless but for edge blocks, or re-encoded.
    public enum Method: String, Sendable {
        /// Every block copied from the source in the DCT domain.
        case lossless
        /// Copied in the DCT domain but for the edge blocks that held pixels
        /// beyond the rect (``JPEGWriteReport/reencodedBlocks``).
        case losslessEdgesReencoded = "lossless-edges-reencoded"
        /// Decoded and encoded again.
        case reencoded
    }

    /// How the crop was made.
    public var method: Method
    /// Edge blocks re-encoded (DCT-domain crops).
    public var reencodedBlocks: Int
    /// Whether the source was entropy-decoded only down to the crop's last
    /// block row.
    public var stoppedEarly: Bool
    /// Which entropy decoder read the source's blocks.
    public var entropy: Entropy = .libjpeg

    /// The entropy decoders a JPEG crop reads the source with.
    public enum Entropy: String, Sendable {
        /// CropKit's own, by the file's restart intervals: from the marker
        /// before the crop's first row (the rows above it never decoded),
        /// its rows in two bands decoded side by side, only the crop's
        /// blocks stored.
        case restartMarkers = "restart-markers"
        /// CropKit's own, on a file without restart markers, on two
        /// threads: the second decoding from the middle of the rows needed
        /// (Huffman codes fall into step on their own), its MCUs used from
        /// the first one whose start the first thread also reached.
        case speculative = "speculative-2"
        /// CropKit's own, from the scan's start on one thread: the second
        /// never fell into step with the first (or was not started).
        case serial
        /// libjpeg-turbo's: a file without restart markers on one core, a
        /// progressive, arithmetic, 12-bit or multi-scan one, one CropKit's
        /// decoder refused (damage it does not step over), or a crop
        /// decoded to pixels.
        case libjpeg
    }
    /// Which Huffman encoder wrote a DCT-domain crop's scan (its bytes are
    /// the same either way).
    public var encoder: Encoder = .libjpeg

    /// The Huffman encoders a DCT-domain crop's scan is written with.
    public enum Encoder: String, Sendable {
        /// CropKit's own: the statistics and the scan each in two bands of
        /// MCU rows side by side (one on a single core), byte for byte what
        /// libjpeg-turbo writes.
        case cropkit
        /// libjpeg-turbo's: a progressive or arithmetic output, a crop
        /// encoded from pixels, or the control
        /// (`CROPKIT_JPEG_ENTROPY=libjpeg`).
        case libjpeg
    }
    /// The tables used: "source tables" or "quality Q".
    public var tables: String
    /// Whether the output is progressive.
    public var progressive: Bool
    /// Whether the output is arithmetic-coded.
    public var arithmetic: Bool
    /// What became of each piece of the source's metadata.
    public var metadata: [MetadataEntry]

    /// A crop encoded again at `quality` (the encoder's, or the default),
    /// with `metadata` written as the entries say: every route that makes
    /// new JPEG pixels (resampled, streamed, overlapped, from another
    /// format) reports through this one.
    static func reencoded(quality: Int, metadata: [MetadataEntry]) -> JPEGWriteReport {
        JPEGWriteReport(
            method: .reencoded, reencodedBlocks: 0, stoppedEarly: false,
            tables: "quality \(quality)", progressive: false, arithmetic: false,
            metadata: metadata)
    }
}

extension JPEGWriteReport: WriteReport {
    /// "JPEG (lossless: every block copied)", or how it was encoded.
    public var summary: String {
        switch method {
        case .lossless: "JPEG (lossless: every block copied)"
        case .losslessEdgesReencoded:
            "JPEG (lossless but \(reencodedBlocks) edge block(s) re-encoded so no pixel beyond the rect stays in them)"
        case .reencoded: "JPEG (re-encoded with the \(tables))"
        }
    }

    /// The method, the blocks encoded again, the tables, the scan kind.
    public var facts: [ImageFileSummary.Detail] {
        [
            .init("method", .text(method.rawValue)),
            .init("reencodedBlocks", .number(reencodedBlocks)),
            .init("stoppedEarly", .flag(stoppedEarly)),
            .init("entropy", .text(entropy.rawValue)), .init("encoder", .text(encoder.rawValue)),
            // {"from": "source"} or {"from": "quality", "quality": 92}.
            .init(
                "tables",
                .typed(
                    tables.hasPrefix("quality ")
                        ? .object([
                            .init("from", .string("quality")),
                            .init("quality", Int(tables.dropFirst(8)).map { .number($0) } ?? .null),
                        ])
                        : .object([.init("from", .string("source")), .init("quality", .null)]),
                    text: tables)),
            .init("progressive", .flag(progressive)), .init("arithmetic", .flag(arithmetic)),
        ]
    }
}
