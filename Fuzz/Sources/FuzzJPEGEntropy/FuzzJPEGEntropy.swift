import CropGeometry
@_spi(Testing) import CropImaging

/// libFuzzer entry for CropKit's JPEG entropy decoder and encoder: the bytes
/// as a JPEG in memory, cropped in the DCT domain (the whole image and its
/// lower right part, snapped to the block grid) with the decoder serial,
/// then speculative with its second thread starting at many points of the
/// data: every crop must be the serial one, byte for byte (the same
/// coefficients, or the same refusal). A difference stops the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGEntropy(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = DecodeLimits(maxPixels: 4 << 20, maxDimension: 1 << 12, maxScans: 50)
    guard let source = try? ImageSource(ImageInput(bytes: bytes), limits: limits),
        source.format == .jpeg
    else { return 0 }
    let stored = source.storedSize
    let rects = [
        PixelRect<ImagePixels>(x: 0, y: 0, width: stored.width, height: stored.height),
        PixelRect(
            x: stored.width / 3, y: stored.height / 3,
            width: max(1, stored.width - stored.width / 3),
            height: max(1, stored.height - stored.height / 3)),
    ]
    // Split points: fixed ones and one from the input's bytes.
    let seeded = 1 + bytes.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF } % 999
    for rect in rects {
        let serial = crop(source, rect, .serial)
        for permille in [1, 7, 100, 333, 450, 800, 999, seeded] {
            let speculative = crop(source, rect, .speculative(permille: permille))
            if speculative != serial {
                fatalError(
                    "speculation from \(permille)/1000 of \(rect) differs from the serial decode")
            }
        }
    }
    return 0
}

/// The crop's bytes (nil when refused).
private func crop(
    _ source: ImageSource, _ rect: PixelRect<ImagePixels>, _ control: JPEGEntropy.Control
)
    -> [UInt8]?
{
    var encoder = JPEGEncoder(snapsToBlocks: true)
    encoder.entropyControl = control
    let job = CropJob(region: .pixels(rect), orientation: .up, format: .jpeg(encoder))
    let sink = MemorySink()
    guard let plan = try? job.plan(for: source), (try? plan.export(to: sink)) != nil else {
        return nil
    }
    return sink.bytes
}
