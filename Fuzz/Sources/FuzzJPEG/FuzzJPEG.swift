import CropImaging
import Foundation

/// libFuzzer entry: the bytes as a JPEG file, scanned and decoded (strictly
/// and leniently, whole and as a crop).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = "/tmp/cropkit-fuzz-\(getpid()).jpg"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size))
    else { return 0 }
    let limits = DecodeLimits(maxPixels: 16 << 20, maxDimension: 1 << 14)
    if let info = try? JPEGFileInfo.read(path: path, limits: limits) {
        _ = try? JPEGDecoder.decode(path: path, info: info, limits: limits, maxScans: 50)
        _ = try? JPEGDecoder.decode(
            path: path,
            rect: (
                info.width / 3, info.height / 3, max(1, info.width / 3), max(1, info.height / 3)
            ),
            info: info, limits: limits, maxScans: 50, lenient: true)
    }
    return 0
}
