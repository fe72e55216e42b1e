internal import CImagingShims
import CropGeometry
import Foundation

/// How a crop is written as JPEG.
///
/// From a JPEG source, by default, the crop is made in the DCT domain
/// whenever its top-left corner lies on the source's block grid
/// (``JPEGFileInfo/blockGrid``, 8 or 16 pixels by the sampling): the
/// quantized coefficients of every block inside the rect are copied, never
/// re-encoded, with the source's tables, sampling and coding. A right or
/// bottom edge that cuts a block inside the photo would leave pixels from
/// beyond the rect in that block's hidden padding, which any decoder can
/// recover: those edge blocks alone are re-encoded with the rect's edge
/// repeated over the padding (the report counts them). Off the grid, the
/// exact rect is re-encoded with the source's own quantization tables and
/// sampling, the smallest loss short of lossless.
///
/// ``Method/lossless`` refuses every crop that is not lossless in full
/// (``CropPlanError/notLossless(_:grownOutward:shrunkInward:blockGrid:)``);
/// ``snapsToBlocks`` grows the rect outward to the grid instead.
public struct JPEGEncoder: Sendable {
    /// Which crops of a JPEG source may be re-encoded.
    public enum Method: String, Sendable {
        /// Lossless where the rect starts on the block grid (edge blocks
        /// that hold pixels beyond the rect re-encoded), re-encoded with the
        /// source's tables elsewhere.
        case automatic
        /// Lossless only: every edge on the block grid or at the photo's
        /// edge, or the plan is refused.
        case lossless
    }

    /// Which crops may be re-encoded.
    public var method: Method
    /// Re-encode at this quality (1 to 100) instead of the source's tables
    /// (no DCT-domain path); for a PNG source, the quality used (default 92).
    public var quality: Int?
    /// Whether the plan grows the rect outward to the source's block grid
    /// (so that the crop is lossless) and reports the rect it wrote.
    public var snapsToBlocks: Bool
    /// What metadata the crop keeps.
    public var metadata: MetadataPolicy
    /// Whether edge blocks that hold pixels beyond the rect are re-encoded
    /// (always, but in the tests' control experiment, which shows what the
    /// padding would leak without it).
    package var fixesEdges = true
    /// Whether a lossless crop's blocks are entropy-decoded by libjpeg-turbo
    /// even where CropKit's own decoder would (the tests' control, which
    /// CropKit's decoder must match byte for byte).
    package var decodesWithLibjpeg: Bool {
        get { entropyControl == .libjpeg }
        set { entropyControl = newValue ? .libjpeg : .automatic }
    }
    /// Which entropy decoder and encoder a DCT-domain crop uses (for the
    /// tests and the fuzz target; `CROPKIT_JPEG_ENTROPY` sets it for a
    /// process when this is automatic).
    @_spi(Testing) public var entropyControl = JPEGEntropy.Control.automatic

    /// An encoder; by default lossless where the rect allows it, exact
    /// elsewhere, metadata kept where it stays true.
    public init(
        method: Method = .automatic, quality: Int? = nil, snapsToBlocks: Bool = false,
        metadata: MetadataPolicy = MetadataPolicy()
    ) {
        self.method = method
        self.quality = quality
        self.snapsToBlocks = snapsToBlocks
        self.metadata = metadata
    }

    /// The quality a PNG source is written at unless one is given.
    public static let defaultQuality = 92
}

extension JPEGEncoder {
    /// Writes `image` (8-bit gray or RGB) as JPEG to `sink`.
    func encode(
        _ image: RasterImage, coding: ck_jpeg_coding, markers: [UInt8], writeJFIF: Bool,
        to sink: some ByteSink
    ) throws(ImagingError) -> Int {
        var request = Self.request(
            width: image.width, height: image.height, channels: image.colorType.channels,
            coding: coding)
        request.write_jfif = writeJFIF ? 1 : 0
        let output = JPEGOutput(sink)
        let (status, message) = image.samples.withUnsafeBufferPointer { pixels in
            Self.run(&request, pixels: pixels.baseAddress, markers: markers, output: output)
        }
        if let failure = output.failure { throw failure }
        guard status == CK_STATUS_OK else {
            throw JPEGEncoder.failure(message)
        }
        return output.bytes
    }

    /// The error of a failed libjpeg encode: its memory budget reached is
    /// a memory error, anything else the encoder's failure (never the
    /// input's corruption).
    package static func failure(_ message: String) -> ImagingError {
        message.contains("Backing store not supported") || message.contains("Insufficient memory")
            ? .outOfMemory(
                detail: "JPEG encoding needed more memory than it may take (libjpeg: \(message))")
            : .encodeFailed(format: "jpeg", detail: message)
    }

    /// An encode request for `width`×`height` pixels of `channels` samples.
    static func request(width: Int, height: Int, channels: Int, coding: ck_jpeg_coding)
        -> ck_jpeg_encode_request
    {
        var request = ck_jpeg_encode_request()
        request.width = UInt32(width)
        request.height = UInt32(height)
        request.components = Int32(channels)
        request.coding = coding
        return request
    }

    /// Runs `ck_jpeg_encode` on `request` over `pixels`, with `markers`
    /// after SOI, into `output`: its status and libjpeg's message.
    static func run(
        _ request: inout ck_jpeg_encode_request, pixels: UnsafePointer<UInt8>?, markers: [UInt8],
        output: JPEGOutput
    ) -> (status: Int32, message: String) {
        let status = markers.withUnsafeBufferPointer { markerBytes in
            request.pixels = pixels
            request.markers = markerBytes.baseAddress
            request.markers_size = markerBytes.count
            return output.run { write, context in
                request.write = write
                request.write_context = context
                return ck_jpeg_encode(&request)
            }
        }
        return (status, cMessage(request.message))
    }

    /// The coding of a JPEG source, to re-encode with its own tables.
    static func sourceCoding(_ info: JPEGFileInfo) -> ck_jpeg_coding {
        var coding = ck_jpeg_coding()
        let slots = info.quantTables.keys.sorted()
        // Tables are passed in slot order 0...3; a missing slot repeats the
        // first so every component's index stays valid.
        let first =
            slots.first.flatMap { info.quantTables[$0] } ?? [UInt16](repeating: 1, count: 64)
        let count = (slots.last ?? 0) + 1
        withUnsafeMutableBytes(of: &coding.quant_tables) { raw in
            let tables = raw.bindMemory(to: UInt16.self)
            for slot in 0..<min(count, 4) {
                let table = info.quantTables[slot] ?? first
                for i in 0..<64 { tables[slot * 64 + i] = table[i] }
            }
        }
        coding.quant_table_count = Int32(min(count, 4))
        withUnsafeMutableBytes(of: &coding.component_quant) { raw in
            let slots = raw.bindMemory(to: Int32.self)
            for (i, slot) in info.componentQuantTables.prefix(4).enumerated() {
                slots[i] = Int32(slot)
            }
        }
        setSampling(&coding, horizontal: info.horizontalSampling, vertical: info.verticalSampling)
        coding.progressive = info.progressive ? 1 : 0
        coding.arithmetic = info.arithmetic ? 1 : 0
        coding.optimize = 1
        coding.restart_interval = Int32(info.restartInterval)
        return coding
    }

    /// libjpeg's own tables at `quality`, with the given sampling.
    static func qualityCoding(_ quality: Int, horizontal: [Int], vertical: [Int], progressive: Bool)
        -> ck_jpeg_coding
    {
        var coding = ck_jpeg_coding()
        coding.quality = Int32(quality)
        setSampling(&coding, horizontal: horizontal, vertical: vertical)
        coding.progressive = progressive ? 1 : 0
        coding.optimize = 1
        return coding
    }

    private static func setSampling(
        _ coding: inout ck_jpeg_coding, horizontal: [Int], vertical: [Int]
    ) {
        withUnsafeMutableBytes(of: &coding.h_samp) { raw in
            let factors = raw.bindMemory(to: Int32.self)
            for (i, factor) in horizontal.prefix(4).enumerated() { factors[i] = Int32(factor) }
        }
        withUnsafeMutableBytes(of: &coding.v_samp) { raw in
            let factors = raw.bindMemory(to: Int32.self)
            for (i, factor) in vertical.prefix(4).enumerated() { factors[i] = Int32(factor) }
        }
    }
}

extension JPEGEncoder {
    /// `image` (8-bit gray or RGB) as a JPEG of the given quality, sampling
    /// (each component's factors) and coding, with `markers` (whole
    /// segments) after SOI: JPEG fixtures, the demo's photo, and the tests'
    /// sources of every kind.
    package static func encoded(
        _ image: RasterImage, quality: Int = 90, horizontal: [Int], vertical: [Int],
        progressive: Bool = false, arithmetic: Bool = false, restartInterval: Int = 0,
        markers: [UInt8] = []
    ) throws(ImagingError) -> [UInt8] {
        var coding = qualityCoding(
            quality, horizontal: horizontal, vertical: vertical, progressive: progressive)
        coding.arithmetic = arithmetic ? 1 : 0
        coding.restart_interval = Int32(restartInterval)
        let sink = MemorySink()
        _ = try JPEGEncoder().encode(
            image, coding: coding, markers: markers, writeJFIF: markers.isEmpty, to: sink)
        return sink.bytes
    }
}

/// The C writers' output: bytes handed to a ``ByteSink`` as they come, the
/// first failure kept to be thrown after the C call returns.
final class JPEGOutput {
    private let sink: any ByteSink
    private(set) var failure: ImagingError?
    private(set) var bytes = 0

    init(_ sink: some ByteSink) {
        self.sink = sink
    }

    /// Runs `body` with a C write function and its context, which point here.
    func run(_ body: (ck_write_fn, UnsafeMutableRawPointer) -> Int32) -> Int32 {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let write: ck_write_fn = { context, bytes, count in
            guard let context, let bytes else { return 1 }
            let output = Unmanaged<JPEGOutput>.fromOpaque(context).takeUnretainedValue()
            do throws(ImagingError) {
                try output.sink.write(Array(UnsafeBufferPointer(start: bytes, count: count))[...])
                output.bytes += count
                return 0
            } catch {
                output.failure = error
                return 1
            }
        }
        return withExtendedLifetime(self) { body(write, context) }
    }
}

/// A JPEG encode that runs on a thread of its own while the decoder fills
/// the crop's rows (``RowConsumer``): each row is encoded as soon as it is
/// final, so decoding and encoding share the cores. The encoder thread is a
/// ``RingJPEGEncode`` reading the decoder's own buffer.
final class PipelinedJPEGEncode: RowConsumer, @unchecked Sendable {
    private let width: Int
    private let height: Int
    private let channels: Int
    private let coding: ck_jpeg_coding
    private let markers: [UInt8]
    private let sink: any ByteSink
    private var encode: RingJPEGEncode?

    init(
        width: Int, height: Int, channels: Int, coding: ck_jpeg_coding, markers: [UInt8],
        to sink: some ByteSink
    ) {
        self.width = width
        self.height = height
        self.channels = channels
        self.coding = coding
        self.markers = markers
        self.sink = sink
    }

    /// The bytes written, once ``end(succeeded:)`` returned.
    var bytes: Int { encode?.bytes ?? 0 }

    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError) {
        encode = RingJPEGEncode(
            width: width, height: height, channels: channels, coding: coding, markers: markers,
            reading: pixels, writeJFIF: false, to: sink)
    }

    func rowsReady(_ rows: Int) { encode?.produced(upTo: rows) }

    func end(succeeded: Bool) throws(ImagingError) {
        try encode?.finish(succeeded: succeeded)
    }
}

/// A JPEG encode on a thread of its own, taking rows as a producer makes
/// them final: from a ring of rows it owns (a slot is written again only
/// once the encoder has taken its row, so an output is encoded while it is
/// made and never held whole), or from a whole buffer it reads (a decoder's).
final class RingJPEGEncode: @unchecked Sendable {
    private let width: Int
    private let height: Int
    private let channels: Int
    private let coding: ck_jpeg_coding
    private let markers: [UInt8]
    private let output: JPEGOutput
    private let lock = NSCondition()
    /// Rows the producer has finished.
    private var produced = 0
    /// Rows the encoder has taken.
    private var consumed = 0
    private var ended = false
    private var done = false
    private var status = Int32(CK_STATUS_CORRUPT)
    private var message = ""
    private let writeJFIF: Bool
    /// The ring: ``ringRows`` rows of `width × channels` bytes (empty when
    /// the encoder reads a buffer it does not own).
    let ring: UnsafeMutableBufferPointer<UInt8>
    /// How many rows the ring holds (0: the rows are read from a whole
    /// buffer).
    let ringRows: Int

    init(
        width: Int, height: Int, channels: Int, coding: ck_jpeg_coding, markers: [UInt8],
        ringRows: Int, to sink: some ByteSink
    ) {
        self.width = width
        self.height = height
        self.channels = channels
        self.coding = coding
        self.markers = markers
        self.ringRows = ringRows
        writeJFIF = true
        output = JPEGOutput(sink)
        ring = .allocate(capacity: width * channels * ringRows)
        ring.initialize(repeating: 0)
        start(reading: UnsafePointer(ring.baseAddress))
    }

    /// An encode reading `pixels`, all `height` rows of them, as they are
    /// reported produced; `pixels` must stay valid until ``finish(succeeded:)``.
    init(
        width: Int, height: Int, channels: Int, coding: ck_jpeg_coding, markers: [UInt8],
        reading pixels: UnsafePointer<UInt8>, writeJFIF: Bool, to sink: some ByteSink
    ) {
        self.width = width
        self.height = height
        self.channels = channels
        self.coding = coding
        self.markers = markers
        self.ringRows = 0
        self.writeJFIF = writeJFIF
        output = JPEGOutput(sink)
        ring = UnsafeMutableBufferPointer(start: nil, count: 0)
        start(reading: pixels)
    }

    private func start(reading pixels: UnsafePointer<UInt8>?) {
        let address = UInt(bitPattern: pixels)
        _ = StageThread { [self] in encode(UnsafePointer(bitPattern: address)) }
    }

    deinit { if ringRows > 0 { ring.deallocate() } }

    /// The bytes written, once ``finish(succeeded:)`` returned.
    var bytes: Int { output.bytes }

    /// Waits until rows `rows` may be written into the ring: every row a
    /// slot of theirs held before has been taken.
    func waitForSpace(_ rows: Range<Int>) {
        lock.lock()
        while rows.upperBound > consumed + ringRows && !done { lock.wait() }
        lock.unlock()
    }

    /// Rows up to `rows` are final.
    func produced(upTo rows: Int) {
        lock.lock()
        produced = rows
        lock.broadcast()
        lock.unlock()
    }

    /// Waits for the encoder; with `succeeded`, throws what it met.
    func finish(succeeded: Bool) throws(ImagingError) {
        lock.lock()
        ended = true
        lock.broadcast()
        while !done { lock.wait() }
        lock.unlock()
        guard succeeded else { return }
        if let failure = output.failure { throw failure }
        guard status == CK_STATUS_OK else {
            throw JPEGEncoder.failure(message)
        }
    }

    private func encode(_ pixels: UnsafePointer<UInt8>?) {
        var request = JPEGEncoder.request(
            width: width, height: height, channels: channels, coding: coding)
        request.ring_rows = UInt32(ringRows)
        request.write_jfif = writeJFIF ? 1 : 0
        request.wait_context = Unmanaged.passUnretained(self).toOpaque()
        request.wait_rows = { context, rows in
            guard let context else { return 1 }
            let encode = Unmanaged<RingJPEGEncode>.fromOpaque(context).takeUnretainedValue()
            encode.lock.lock()
            defer { encode.lock.unlock() }
            // Every row before this one has been taken.
            encode.consumed = Int(rows) - 1
            encode.lock.broadcast()
            while encode.produced < Int(rows) && !encode.ended { encode.lock.wait() }
            return encode.produced >= Int(rows) ? 0 : 1
        }
        let (result, text) = JPEGEncoder.run(
            &request, pixels: pixels, markers: markers, output: output)
        lock.lock()
        status = result
        message = text
        done = true
        consumed = height
        lock.broadcast()
        lock.unlock()
    }
}
