import CropImaging
import Foundation

/// libFuzzer entry: the bytes as a PNG file, scanned and decoded whole and
/// as a crop; any outcome but a crash, a leak or a hang is fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = FuzzFile.path
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size))
    else { return 0 }
    let limits = DecodeLimits(maxPixels: 16 << 20, maxDimension: 1 << 14)
    if let info = try? PNGFileInfo.read(path: path, limits: limits) {
        _ = try? PNGDecoder.decode(path: path, info: info, limits: limits)
        _ = try? PNGDecoder.decode(
            path: path,
            rect: (
                info.width / 3, info.height / 3, max(1, info.width / 3), max(1, info.height / 3)
            ),
            info: info, limits: limits)
    }
    return 0
}

enum FuzzFile {
    static let path = "/tmp/cropkit-fuzz-\(getpid()).png"
}
