internal import CImagingShims
import CropGeometry
import Dispatch
import Foundation

/// Decodes the tiles of a HEIF that a crop touches, and no others.
///
/// Each tile goes to libheif alone, wrapped as a minimal one-image HEIF in
/// memory (its `hvcC`, `ispe`, colour and `pixi` boxes, and its coded
/// bytes): libheif never reads the source file, so nothing in the source's
/// boxes can reach it, and a tile decodes the same as libheif's decode of
/// the whole image at that tile. The tiles of one row decode in parallel.
public enum HEIFDecoder {
    /// The version of the libheif this process loaded (`libheif.so.1`), or
    /// `nil` where it is not installed: HEIF files are then refused with
    /// ``ImagingError/libraryMissing(library:package:)``.
    public static var libheifVersion: String? {
        ck_heif_version().map { String(cString: $0) }
    }

    /// The pixels of `rect` (stored grid: the canvas after `clap`), as RGB
    /// or RGBA, 8-bit or (above 8 bits, scaled by bit replication) 16-bit,
    /// reporting the finished rows to `rows` a tile row at a time.
    static func decode(
        _ input: ImageInput, info: HEIFFileInfo, rect crop: PixelRect<StoredPixels>,
        limits: DecodeLimits, rows consumer: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try info.codec.requireDecoder()
        let format = HEIFPixelFormat(info)
        let size = try limits.cropBytes(crop, bytesPerPixel: format.bytesPerPixel)
        let canvas = PixelRect<StoredPixels>(
            x: crop.x + info.origin.x, y: crop.y + info.origin.y, width: crop.width,
            height: crop.height)
        let rowBytes = crop.width * format.bytesPerPixel
        var failure: ImagingError?
        let (samples, status) = try decodeRows(size: size, rows: crop.height, into: consumer) {
            pixels, ready, context in
            do throws(ImagingError) {
                let plane = Plane(
                    base: pixels, rowBytes: rowBytes, canvas: canvas,
                    pixelBytes: format.bytesPerPixel)
                let bands = bandsOf(info.layout, touching: canvas)
                let alpha = info.alpha
                for band in bands {
                    try decodeTiles(
                        band.tiles, of: info.layout, input: input, into: plane, channels: 3,
                        offset: 0, bitDepth: info.bitDepth, scale: format.scaleBits)
                    if alpha == nil, let ready {
                        ready(context, UInt32(band.rowsDone))
                    }
                }
                if let alpha {
                    try decodeTiles(
                        alpha.tiles(touching: canvas), of: alpha, input: input, into: plane,
                        channels: 1, offset: 3 * format.sampleBytes, bitDepth: info.bitDepth,
                        scale: format.scaleBits)
                    if let ready { ready(context, UInt32(crop.height)) }
                }
                return Int32(CK_STATUS_OK)
            } catch {
                failure = error
                return Int32(CK_STATUS_CORRUPT)
            }
        }
        if let failure { throw failure }
        guard status == CK_STATUS_OK else {
            throw .corrupt(format: .heif, detail: "the tiles could not be decoded")
        }
        let image = RasterImage(
            width: crop.width, height: crop.height, colorType: format.colorType,
            bitDepth: format.bitDepth, samples: samples)
        return DecodedImage(image: image, warnings: info.warnings)
    }

    /// One coded image decoded whole: RGB, 8-bit or (above 8 bits) the
    /// coded values in 16-bit big-endian samples.
    static func decodeWhole(_ tile: HEIFCodedImage, input: ImageInput, bitDepth: Int)
        throws(ImagingError) -> [UInt8]
    {
        do throws(ImagingError) {
            return try decodeWhole(
                file: HEIFTileFile.make(tile, input: input), width: tile.width,
                height: tile.height, bitDepth: bitDepth)
        } catch .corrupt(_, let detail) {
            throw .corrupt(format: .heif, detail: "item \(tile.item): \(detail)")
        }
    }

    /// A HEIF file's primary image as libheif decodes it whole (its own
    /// grid assembly, `clap`, `irot` and `imir` applied), `width`×`height`:
    /// RGB, 8-bit or (above 8 bits) the coded values in 16-bit big-endian
    /// samples. For files CropKit wrote or read first; the tests compare
    /// CropKit's crops with it.
    package static func decodeWhole(file: [UInt8], width: Int, height: Int, bitDepth: Int)
        throws(ImagingError) -> [UInt8]
    {
        try RuntimeLibrary.libheif.require()
        let pixelBytes = bitDepth > 8 ? 6 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * pixelBytes)
        var file = file
        var request = ck_heif_decode_request()
        request.channels = 3
        request.bit_depth = UInt32(bitDepth)
        request.width = UInt32(width)
        request.height = UInt32(height)
        request.destination_stride = width * pixelBytes
        request.destination_pixel_bytes = UInt32(pixelBytes)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            file.withUnsafeMutableBufferPointer { bytes in
                request.destination = out.baseAddress
                request.file = UnsafePointer(bytes.baseAddress)
                request.file_size = bytes.count
                return ck_heif_decode(&request)
            }
        }
        guard status == CK_STATUS_OK else {
            throw .corrupt(format: .heif, detail: cMessage(request.message))
        }
        return pixels
    }

    /// The crop's rows as bands of tile rows: the tiles of each, and how
    /// many crop rows are final after it.
    static func bandsOf(_ layout: HEIFLayout, touching canvas: PixelRect<StoredPixels>)
        -> [(tiles: [Int], rowsDone: Int)]
    {
        let tiles = layout.tiles(touching: canvas)
        var bands: [(tiles: [Int], rowsDone: Int)] = []
        for index in tiles {
            let row = index / layout.columns
            let bottom = min((row + 1) * layout.tileHeight, canvas.y + canvas.height) - canvas.y
            if let last = bands.last, last.rowsDone == bottom {
                bands[bands.count - 1].tiles.append(index)
            } else {
                bands.append(([index], bottom))
            }
        }
        return bands
    }

    /// Where decoded pixels go: the crop's buffer and its place on the
    /// canvas.
    struct Plane: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt8>
        let rowBytes: Int
        let canvas: PixelRect<StoredPixels>
        let pixelBytes: Int
    }

    /// Decodes `indices` of `layout` in parallel, each tile's part inside
    /// the plane's canvas rect copied to its place.
    static func decodeTiles(
        _ indices: [Int], of layout: HEIFLayout, input: ImageInput, into plane: Plane,
        channels: Int, offset: Int, bitDepth: Int, scale: Int
    ) throws(ImagingError) {
        let errors = ErrorBox()
        DispatchQueue.concurrentPerform(iterations: indices.count) { n in
            let index = indices[n]
            let tile = layout.tiles[index]
            let left = index % layout.columns * layout.tileWidth
            let top = index / layout.columns * layout.tileHeight
            let x0 = max(left, plane.canvas.x)
            let y0 = max(top, plane.canvas.y)
            let x1 = min(left + tile.width, plane.canvas.x + plane.canvas.width, layout.width)
            let y1 = min(top + tile.height, plane.canvas.y + plane.canvas.height, layout.height)
            guard x1 > x0, y1 > y0 else { return }
            do throws(ImagingError) {
                var request = ck_heif_decode_request()
                request.channels = UInt32(channels)
                request.bit_depth = UInt32(bitDepth)
                request.source_x = UInt32(x0 - left)
                request.source_y = UInt32(y0 - top)
                request.width = UInt32(x1 - x0)
                request.height = UInt32(y1 - y0)
                request.destination =
                    plane.base + (y0 - plane.canvas.y) * plane.rowBytes
                    + (x0 - plane.canvas.x) * plane.pixelBytes + offset
                request.destination_stride = plane.rowBytes
                request.destination_pixel_bytes = UInt32(plane.pixelBytes)
                request.scale_bits = UInt32(scale)
                // One tile alone gets every core; several share them.
                let threads = indices.count == 1 ? activeCores : 1
                let status = try tile.decode(&request, input: input, threads: threads)
                guard status == CK_STATUS_OK else {
                    let message = cMessage(request.message)
                    if status == CK_STATUS_OUT_OF_MEMORY {
                        throw ImagingError.outOfMemory(detail: "decoding tile \(index): \(message)")
                    }
                    throw ImagingError.corrupt(
                        format: .heif, detail: "tile \(index) (item \(tile.item)): \(message)")
                }
            } catch {
                errors.record(error, order: n)
            }
        }
        if let error = errors.first { throw error }
    }
}

/// The pixel format a HEIF decode gives.
struct HEIFPixelFormat {
    let colorType: ColorType
    let bitDepth: Int
    /// Above 8 bits, the source's bit depth (samples scaled to 16 bits).
    let scaleBits: Int

    init(_ info: HEIFFileInfo) {
        colorType = info.alpha == nil ? .rgb : .rgba
        bitDepth = info.bitDepth > 8 ? 16 : 8
        scaleBits = info.bitDepth > 8 ? info.bitDepth : 0
    }

    var sampleBytes: Int { bitDepth == 16 ? 2 : 1 }
    var bytesPerPixel: Int { colorType.channels * sampleBytes }
}

/// The first error of a parallel loop, by iteration order.
final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var found: (order: Int, error: ImagingError)?

    func record(_ error: ImagingError, order: Int) {
        lock.withLock {
            if order < found?.order ?? Int.max { found = (order, error) }
        }
    }

    var first: ImagingError? { lock.withLock { found?.error } }
}

/// `body(n)` for every `n` in `0..<count`, side by side (one a core, as
/// `DispatchQueue.concurrentPerform` runs them), the results in order: the
/// data-parallel work over a HEIF's tiles. Throws the error of the lowest
/// `n` that failed.
func concurrentResults<T>(_ count: Int, _ body: @Sendable (Int) throws(ImagingError) -> T)
    throws(ImagingError) -> [T]
{
    let slots = ResultSlots<T>(count)
    let errors = ErrorBox()
    DispatchQueue.concurrentPerform(iterations: count) { n in
        do throws(ImagingError) {
            // Each iteration writes its own slot only.
            slots.values[n] = try body(n)
        } catch {
            errors.record(error, order: n)
        }
    }
    if let error = errors.first { throw error }
    return slots.values.map { value in
        guard let value else { preconditionFailure("every slot was filled") }
        return value
    }
}

/// One result a slot, each written by its own iteration of a concurrent
/// loop (``concurrentResults(_:_:)``).
private final class ResultSlots<T>: @unchecked Sendable {
    var values: [T?]
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
}

extension HEIFCodec {
    /// Whether AV1 images go to libavif: where it is installed, unless
    /// `CROPKIT_AV1_DECODER=libheif` asks for libheif's decoder (to measure
    /// one against the other).
    package static let av1ThroughLibavif: Bool =
        ProcessInfo.processInfo.environment["CROPKIT_AV1_DECODER"] != "libheif"
        && RuntimeLibrary.libavif.isAvailable

    /// Throws unless this codec's images can be decoded here: AV1 by
    /// libavif or libheif, HEVC by libheif.
    func requireDecoder() throws(ImagingError) {
        if self == .av1, Self.av1ThroughLibavif { return }
        try RuntimeLibrary.libheif.require()
    }
}

extension HEIFCodedImage {
    /// Decodes this image, wrapped as a minimal one-image file, as
    /// `request` asks: AV1 through libavif with dav1d on `threads` threads
    /// where installed (measured about three times as fast as libheif's
    /// decode of the same frame, Benchmarks/RESULTS.md), else libheif.
    /// Returns the shim's status, its words in `request.message`.
    func decode(_ request: inout ck_heif_decode_request, input: ImageInput, threads: Int)
        throws(ImagingError) -> Int32
    {
        var file = try HEIFTileFile.make(self, input: input)
        let viaLibavif = codec == .av1 && HEIFCodec.av1ThroughLibavif
        return file.withUnsafeMutableBufferPointer { bytes in
            request.file = UnsafePointer(bytes.baseAddress)
            request.file_size = bytes.count
            return viaLibavif
                ? ck_avif_decode(&request, UInt32(max(threads, 1))) : ck_heif_decode(&request)
        }
    }
}

/// A minimal one-image HEIF holding a coded image, for libheif to decode.
enum HEIFTileFile {
    /// The file: `ftyp`, a `meta` describing one `hvc1` item with the
    /// image's own decoder configuration, size and colour, and an `mdat`
    /// with its coded bytes.
    static func make(_ tile: HEIFCodedImage, input: ImageInput) throws(ImagingError) -> [UInt8] {
        var writer = HEIFFileWriter(codec: tile.codec)
        var properties: [([UInt8], Bool)] = [
            (tile.configuration, true),
            (HEIFFileWriter.ispe(width: tile.width, height: tile.height), false),
        ]
        properties += tile.colourBoxes.map { ($0, false) }
        if let pixi = tile.pixi { properties.append((pixi, false)) }
        writer.primary = writer.addItem(
            type: tile.codec.itemType, hidden: false, properties: properties)
        writer.setData(writer.primary, .extents(tile.extents))
        let sink = MemorySink()
        _ = try writer.write(to: sink, input: input)
        return sink.bytes
    }
}
