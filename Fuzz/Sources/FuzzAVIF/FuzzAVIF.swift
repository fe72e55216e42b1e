import CropGeometry
import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as an AVIF file in memory: its boxes read, a
/// third of it decoded and cropped to PNG, and to AVIF (tiles copied or the rect
/// encoded), and its leaks looked for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    fuzzImage(bytes, format: .avif)
    let limits = DecodeLimits(maxPixels: 4 << 20, maxDimension: 1 << 12)
    guard let source = try? ImageSource(ImageInput(bytes: bytes), limits: limits),
        source.format == .avif
    else { return 0 }
    _ = try? LeakCheck.findings(in: source)
    let seen = source.orientation.orientedSize(source.storedSize)
    let job = CropJob(
        region: .pixels(
            PixelRect(
                x: seen.width / 4, y: seen.height / 4, width: max(1, seen.width / 2),
                height: max(1, seen.height / 2))),
        format: .avif(AVIFEncoder()))
    if let plan = try? job.plan(for: source) {
        _ = try? plan.export(to: MemorySink())
    }
    return 0
}
