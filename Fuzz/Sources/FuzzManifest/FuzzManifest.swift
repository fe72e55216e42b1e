import CropKitCLI
import Foundation

/// The folder a fuzz run crops in, `root` inside a folder of its own (so
/// that what appears beside it is this run's doing, not another program's):
/// a 64x48 PNG `a.png`, made once.
nonisolated(unsafe) let folder: String = {
    let path = NSTemporaryDirectory() + "cropkit-fuzz-manifest-\(getpid())/root"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    _ = CropKitTool.run(
        ["fixture", "64x48", "-o", path + "/a.png"],
        console: Console(out: StringSink(), err: StringSink()))
    return path
}()

/// libFuzzer entry: the bytes as a `cropkit batch` manifest run under
/// `--root` the folder: whatever the lines say, the batch ends with one of
/// its exit codes and writes nothing outside the folder, and what it wrote
/// inside is removed again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let manifest = folder + "/m.jsonl"
    FileManager.default.createFile(
        atPath: manifest, contents: Data(UnsafeBufferPointer(start: data, count: size)))
    let parent = (folder as NSString).deletingLastPathComponent
    let before = Set((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [])
    let status = CropKitTool.run(
        ["batch", manifest, "--root", folder, "--jobs", "1", "--max-variants", "4"],
        console: Console(out: StringSink(), err: StringSink()))
    guard [0, 1, 2, 64].contains(status) else { fatalError("batch exited \(status)") }
    let after = Set((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [])
    if !after.subtracting(before).isEmpty {
        fatalError("written outside --root: \(after.subtracting(before))")
    }
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    where name != "a.png" && name != "m.jsonl" {
        try? FileManager.default.removeItem(atPath: folder + "/" + name)
    }
    return 0
}
