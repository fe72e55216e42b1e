import CropGeometry
import CropRecords

/// libFuzzer entry: the bytes as one JSON Lines record, parsed, replayed and
/// written back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let record = try? CropRecord(jsonLine: line) {
        let outcome = record.replay()
        _ = record.mismatches(outcome)
        _ = record.jsonLine(replaying: outcome)
        _ = CropDiagram.svg(for: record.request)
    }
    return 0
}
