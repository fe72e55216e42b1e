import CropImaging
import FuzzImageSupport

/// libFuzzer entry: the bytes as an animated GIF in memory: its frames
/// read and composited, frame 1 made a still, its leaks looked for, and its
/// middle cropped into GIF, APNG and WebP.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzAnimation(data, size, format: .gif)
}
