import CropGeometry
import CropKitTestSupport
import CropRecords
import Testing

/// One line of `cropkit replay` without an export, as the command line and
/// the browser playground both write it.
@Suite(.announcesSkips) struct RecordReplayTests {
    static let record =
        #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150},"mode":"aspectFit""#

    func replayed(_ line: String, number: Int = 1) -> (RecordReplay, String) {
        var bytes = Array(line.utf8)
        var out: [UInt8] = []
        let replay = bytes.withUnsafeMutableBufferPointer { buffer in
            let line = UnsafeBufferPointer(buffer)
            let replay = RecordReplay(line: line)
            replay.write(line: line, number: number, to: &out)
            return replay
        }
        return (replay, String(decoding: out, as: UTF8.self))
    }

    @Test func aRecordWithoutExpectedIsEchoedWithItsAnswer() {
        let (replay, text) = replayed(Self.record + "}")
        #expect(replay.verdict == .unchecked)
        #expect(text == Self.record + #","result":{"x":1000,"y":500,"width":2000,"height":2000}}"#)
    }

    @Test func anExpectationThatHoldsPassesAndOneThatDoesNotFailsNamingTheField() {
        let holds = replayed(
            Self.record + #","expected":{"x":1000,"y":500,"width":2000,"height":2000}}"#)
        #expect(holds.0.verdict == .passed)
        #expect(holds.1.hasSuffix(#""check":"passed"}"#))
        let fails = replayed(
            Self.record + #","expected":{"x":1000,"y":500,"width":2000,"height":2001}}"#)
        #expect(fails.0.verdict == .failed)
        #expect(
            fails.1.hasSuffix(
                #""check":"failed","mismatches":["height: expected 2001, got 2000"],"#
                    + #""differences":[{"field":"height","expected":2001,"actual":2000,"#
                    + #""summary":"height: expected 2001, got 2000"}]}"#))
    }

    @Test func aLineThatIsNotARecordIsWrittenAsAnErrorWithItsNumber() {
        let (replay, text) = replayed("{\"source\":", number: 7)
        #expect(replay.verdict == .invalid && replay.record == nil)
        #expect(text.hasPrefix(#"{"line":7,"error":"not valid JSON"#))
    }

    @Test func aTurnedRecordIsAnsweredWithItsOutputRectAndQuad() {
        let (replay, text) = replayed(Self.record + #","angle":5}"#)
        guard case .turned(.success(let crop))? = replay.answer else {
            Issue.record("not a turned answer: \(text)")
            return
        }
        #expect(crop.rect == PixelRect(x: 1000, y: 500, width: 2000, height: 2000))
        #expect(text.contains(#""quad":[["#))
    }
}
