import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as an AVIF file in memory: its boxes read, a
/// third of it decoded and cropped to PNG, and to AVIF (tiles copied or the
/// rect encoded), and its leaks looked for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzCrop(data, size, format: .avif, output: .avif(AVIFEncoder()))
}
