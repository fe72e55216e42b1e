internal import CImagingShims
import CropGeometry

/// The row stream between the stages of the pipeline: receives a decode's
/// rows while they are decoded, told where the rows go before the first,
/// how many are final as the decoder finishes them, and whether the decode
/// succeeded. How a decoder feeds an encoder (or a resampler) without
/// either calling the other.
///
/// A plain Swift protocol: the C decoders' `ck_rows_ready_fn` callbacks
/// reach it through one trampoline in ``decodeRows(size:rows:into:_:)``.
protocol RowConsumer: AnyObject {
    /// Called once before the first row with the buffer the rows are written
    /// to, top-down, which stays valid until ``end(succeeded:)``.
    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError)
    /// Rows `0..<rows` of the buffer are final; called on the decoder's
    /// thread, with `rows` growing.
    func rowsReady(_ rows: Int)
    /// Called once after the decode; with `succeeded` false the rows will
    /// never all come.
    func end(succeeded: Bool) throws(ImagingError)
}

/// A consumer passed through C as a callback's context.
private final class RowConsumerBox {
    let consumer: any RowConsumer
    init(_ consumer: any RowConsumer) { self.consumer = consumer }
}

/// The one C callback every decoder reports rows through.
private let rowsReadyTrampoline: ck_rows_ready_fn = { context, rows in
    guard let context else { return }
    Unmanaged<RowConsumerBox>.fromOpaque(context).takeUnretainedValue().consumer.rowsReady(
        Int(rows))
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
            try consumer.begin(pixels: UnsafePointer(pixels))
            let box = RowConsumerBox(consumer)
            status = withExtendedLifetime(box) {
                decode(pixels, rowsReadyTrampoline, Unmanaged.passUnretained(box).toOpaque())
            }
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
