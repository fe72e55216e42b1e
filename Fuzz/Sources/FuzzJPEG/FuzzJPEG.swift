import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as a JPEG file in memory, read, decoded
/// (strictly and leniently, whole and as a crop) and cropped to memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzImage(Array(UnsafeBufferPointer(start: data, count: size)), format: .jpeg)
    return 0
}
