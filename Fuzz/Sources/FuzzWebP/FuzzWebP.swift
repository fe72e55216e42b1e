import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as a WebP file in memory: its chunks read, a
/// third of it decoded and cropped to PNG, and to WebP (the metadata cleaned
/// and written again), and its leaks looked for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzCrop(data, size, format: .webp, output: .webp(WebPEncoder()))
}
