import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as a PNG file in memory, read and decoded
/// whole and as a crop, and cropped to a PNG in memory through the
/// pipeline; any outcome but a crash, a leak or a hang is fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzImage(Array(UnsafeBufferPointer(start: data, count: size)), format: .png)
    return 0
}
