import CropImaging

/// libFuzzer entry: the bytes as an XMP packet whose location properties
/// are removed (`--strip location`). What comes out must read again with
/// nothing left to remove, and be no longer than what went in; a packet
/// that cannot be read must be refused (`nil`), never half-cut.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let (stripped, removed) = XMPLocation.removing(from: text) else { return 0 }
    guard stripped.utf8.count <= text.utf8.count else { fatalError("the packet grew") }
    if removed.isEmpty, stripped != text { fatalError("bytes changed with nothing removed") }
    guard let again = XMPLocation.removing(from: stripped) else {
        fatalError("the stripped packet no longer reads as XML")
    }
    if !again.removed.isEmpty { fatalError("location left after stripping: \(again.removed)") }
    return 0
}
