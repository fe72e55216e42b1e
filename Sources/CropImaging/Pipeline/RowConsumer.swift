internal import CImagingShims
import CropGeometry

/// Receives a decode's rows while they are decoded: told where the rows go
/// before the first, of each row as it is final (through the C callback it
/// hands out), and whether the decode succeeded. How a decoder feeds an
/// encoder without the encoder calling the decoder.
protocol RowConsumer: AnyObject {
    /// Called once before the first row with the buffer the rows are written
    /// to, top-down, which stays valid until ``end(succeeded:)``; returns the
    /// callback to report finished rows to and its context.
    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError)
        -> (ready: ck_rows_ready_fn, context: UnsafeMutableRawPointer?)
    /// Called once after the decode; with `succeeded` false the rows will
    /// never all come.
    func end(succeeded: Bool) throws(ImagingError)
}

/// Allocates a decode's output (`size` bytes, and one spare byte a row so an
/// encoder can filter in place), runs `decode` to fill it while `consumer`
/// (if any) is told of each finished row, and returns the bytes and the C
/// status. The bytes count as written only once the decode succeeded; the
/// consumer has ended before this returns, so the buffer outlives any thread
/// reading it.
///
/// - Throws: the consumer's ``ImagingError`` when the decode succeeded but
///   the consumer failed (a decode error is the caller's to report).
func decodeRows(
    size: Int, rows: Int, into consumer: (any RowConsumer)?,
    _ decode: (UnsafeMutablePointer<UInt8>, ck_rows_ready_fn?, UnsafeMutableRawPointer?) -> Int32
) throws(ImagingError) -> (bytes: [UInt8], status: Int32) {
    var status = Int32(CK_STATUS_CORRUPT)
    var failure: ImagingError?
    let bytes = [UInt8](unsafeUninitializedCapacity: size + rows) { buffer, count in
        count = 0
        guard let pixels = buffer.baseAddress else { return }
        guard let consumer else {
            status = decode(pixels, nil, nil)
            if status == CK_STATUS_OK { count = size }
            return
        }
        do throws(ImagingError) {
            let (ready, context) = try consumer.begin(pixels: UnsafePointer(pixels))
            status = decode(pixels, ready, context)
            do throws(ImagingError) {
                try consumer.end(succeeded: status == CK_STATUS_OK)
            } catch {
                if status == CK_STATUS_OK { failure = error }
            }
        } catch {
            failure = error
        }
        if status == CK_STATUS_OK && failure == nil { count = size }
    }
    if let failure { throw failure }
    return (bytes, status)
}
