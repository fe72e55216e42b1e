import CropGeometry

/// An animated image's timeline as its container stores it: the canvas,
/// the loop count, and each frame's rectangle, duration, disposal, blend
/// and coded data, read without decoding a pixel.
///
/// GIF, APNG and animated WebP are read into this one shape
/// (``AnimatedImage/open(path:limits:)``); a crop cuts every frame of it to
/// the rect and writes the same timeline (DESIGN.md, "Animated images").
public struct Animation: Sendable {
    /// The container the frames were read from: ``ImageFormat/gif``,
    /// ``ImageFormat/png`` (APNG) or ``ImageFormat/webp``.
    public var format: ImageFormat
    /// The canvas every frame is composited onto (GIF's logical screen, the
    /// PNG's IHDR, the WebP's VP8X canvas).
    public var canvas: PixelSize<StoredPixels>
    /// How many times the animation plays; 0 for forever. A GIF's NETSCAPE
    /// loop count counts repeats, so a stored 2 is 3 plays here.
    public var plays: Int
    /// The frames, in order.
    public var frames: [AnimationFrame]
    /// What the container says beyond its frames (colour tables, the PNG's
    /// chunks, the WebP's background colour).
    var details: AnimationDetails
    /// Problems reading the container that did not stop it.
    public var warnings: [String] = []
    /// Where the container ends (the GIF trailer's, IEND's or the RIFF
    /// form's last byte, plus one); bytes after it are not the image.
    var endOfImage: Int?
    /// The frames reaching beyond the canvas, kept only by a leak check's
    /// reading (``AnimationReading/leakCheck``); a crop's reading refuses them.
    var framesBeyondCanvas: [Int] = []

    /// The sum of the durations, in milliseconds (exact when every
    /// duration is a whole millisecond; otherwise rounded down).
    public var totalMilliseconds: Int {
        frames.reduce(0) { $0 + $1.duration.milliseconds }
    }

    /// The largest frame's area in pixels: what one decoded frame holds.
    var largestFrameArea: Int { frames.map { $0.rect.width * $0.rect.height }.max() ?? 0 }

    /// Whether every frame's pixels are coded losslessly (GIF, APNG, WebP
    /// VP8L).
    public var isLossless: Bool { frames.allSatisfy { $0.isLossless } }

    /// The channel depth the frames composite at: 16 for a 16-bit APNG,
    /// else 8.
    public var bitDepth: Int {
        if case .png(let png) = details, png.bitDepth == 16 { return 16 }
        return 8
    }
}

/// How a container is read: for a crop, which refuses a frame beyond the
/// canvas, or for a leak check, which keeps it to report it.
enum AnimationReading {
    case crop
    case leakCheck
}

/// One frame of an ``Animation``.
public struct AnimationFrame: Sendable {
    /// Where the frame's pixels go on the canvas.
    public var rect: PixelRect<StoredPixels>
    /// How long the canvas is shown after this frame is drawn.
    public var duration: FrameDuration
    /// What happens to the frame's rectangle before the next frame.
    public var disposal: FrameDisposal
    /// How the frame's pixels are drawn onto the canvas.
    public var blend: FrameBlend
    /// Whether the frame's pixels are coded losslessly.
    public var isLossless: Bool
    /// Where the frame's coded data lies in the file.
    var data: FrameData
}

/// A frame's duration as its container stores it: `numerator` /
/// `denominator` seconds (a GIF's 1/100 s, an APNG's fraction, a WebP's
/// milliseconds), so that a crop writes back what was read.
public struct FrameDuration: Hashable, Sendable, CustomStringConvertible {
    /// The numerator as stored.
    public var numerator: Int
    /// The denominator (never 0: an APNG's stored 0 means 100).
    public var denominator: Int

    /// A duration of `numerator`/`denominator` seconds.
    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator == 0 ? 100 : denominator
    }

    /// The duration in whole milliseconds, rounded down.
    public var milliseconds: Int { numerator * 1000 / denominator }

    /// Whether the duration is a whole number of `1/unit` seconds.
    public func isWhole(in unit: Int) -> Bool { (numerator * unit) % denominator == 0 }

    /// The duration as a count of `1/unit` seconds (exact only when
    /// ``isWhole(in:)``).
    public func count(in unit: Int) -> Int { numerator * unit / denominator }

    /// Whether two durations are the same length of time.
    public func sameLength(as other: FrameDuration) -> Bool {
        numerator * other.denominator == other.numerator * denominator
    }

    /// "60 ms", or "1/3 s" when not a whole millisecond.
    public var description: String {
        isWhole(in: 1000) ? "\(milliseconds) ms" : "\(numerator)/\(denominator) s"
    }
}

/// What is done to a frame's rectangle after it has been shown.
public enum FrameDisposal: String, Hashable, Sendable {
    /// Left as drawn (GIF 0 "unspecified" and 1).
    case none
    /// Cleared to transparent (GIF's "restore to background" as browsers do it).
    case background
    /// Put back as it was before the frame was drawn.
    case previous
}

/// How a frame's pixels meet the canvas.
public enum FrameBlend: String, Hashable, Sendable {
    /// Replace the canvas's pixels in the rectangle.
    case source
    /// Draw over them by alpha (a GIF's transparent index leaves them).
    case over
}

/// Where a frame's coded data lies, per container.
enum FrameData: Sendable {
    case gif(GIFFrameData)
    /// The zlib stream's pieces (fdAT payloads after their sequence
    /// numbers, or the IDAT payloads of a default image that is frame 0).
    case png([ByteRange])
    case webp(WebPFrameData)
}

/// A run of bytes in the input.
struct ByteRange: Hashable, Sendable {
    var offset: Int
    var count: Int
    var end: Int { offset + count }
}

/// A GIF frame's coded data.
struct GIFFrameData: Sendable {
    /// The local colour table (RGB triples), if the frame has one.
    var localColours: [UInt8]?
    /// The transparent index from the graphic control extension.
    var transparentIndex: Int?
    /// Whether rows are stored interlaced.
    var interlaced: Bool
    /// The stored disposal method (0–7), written back as read.
    var storedDisposal: Int
    /// The delay in 1/100 s as stored.
    var delay: Int
    /// The LZW minimum code size (2–8).
    var minimumCodeSize: Int
    /// The LZW minimum code size byte and the data sub-blocks through their
    /// terminator.
    var lzw: ByteRange
}

/// An animated WebP frame's coded data.
struct WebPFrameData: Sendable {
    /// The ALPH chunk's payload of a lossy frame with alpha.
    var alpha: ByteRange?
    /// The VP8 or VP8L chunk's payload.
    var bitstream: ByteRange
    /// "VP8 " or "VP8L".
    var bitstreamType: String
    /// Whether the frame has alpha: an ALPH chunk, or a VP8L header's
    /// alpha bit (what libwebp's demuxer says, and its compositing asks).
    var hasAlpha: Bool
}

/// What a container says beyond its frames.
enum AnimationDetails: Sendable {
    case gif(GIFDetails)
    case png(APNGDetails)
    case webp(WebPAnimationDetails)
}

/// A GIF's screen descriptor and global extensions.
struct GIFDetails: Sendable {
    /// "87a" or "89a".
    var version: String
    /// The global colour table (RGB triples), if any.
    var globalColours: [UInt8]?
    /// The background colour index as stored.
    var backgroundIndex: Int
    /// The pixel aspect ratio byte as stored.
    var aspectByte: Int
    /// Whether a NETSCAPE2.0 loop extension was present.
    var hasLoopExtension: Bool
    /// Application extensions other than the loop count, named ("ICCRGBG1",
    /// "XMP DataXMP"), with where their sub-blocks lie.
    var applicationExtensions: [(name: String, blocks: ByteRange)]
    /// How many comment and plain-text extensions there were.
    var comments: Int
}

/// An APNG's header and chunks.
struct APNGDetails: Sendable {
    var colorType: ColorType
    var bitDepth: Int
    var interlaced: Bool
    /// PLTE, tRNS and the colour chunks (gAMA, cHRM, sRGB, iCCP, cICP,
    /// sBIT), carried into a crop.
    var colourChunks: [PNGChunk]
    /// The IDAT pieces of a default image that is not a frame, which a crop
    /// cuts too; `nil` when the default image is frame 0.
    var hiddenDefault: [ByteRange]?
    /// The names of other chunks, dropped by a crop.
    var otherChunks: [String]
    /// Each frame's delay denominator as stored (a 0, meaning 100, is
    /// written back as read).
    var storedDenominators: [Int]
}

/// An animated WebP's ANIM chunk and metadata chunks.
struct WebPAnimationDetails: Sendable {
    /// The ANIM background colour as stored (B, G, R, A bytes).
    var background: [UInt8]
    /// Whether the VP8X header says the frames have alpha.
    var hasAlpha: Bool
    /// The ICCP, EXIF and XMP chunks' payload ranges.
    var icc: ByteRange?
    var exif: ByteRange?
    var xmp: ByteRange?
}
