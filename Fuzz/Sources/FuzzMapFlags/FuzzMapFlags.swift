import CropKitCLI

/// libFuzzer entry: the bytes, split on NUL, as the arguments of
/// `cropkit map`, run in process with its output discarded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMapFlags(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let arguments =
        ["map"] + text.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
    _ = CropKitTool.run(arguments, console: Console(out: StringSink(), err: StringSink()))
    return 0
}
