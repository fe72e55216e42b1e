import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as a HEIF file in memory: its boxes read, a third
/// of it decoded and cropped to PNG, and to HEIC (tiles copied, edge tiles
/// encoded again), and its leaks looked for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzCrop(data, size, format: .heif, output: .heif(HEIFEncoder()))
}
