import CropGeometry
import CropKitTestSupport
import CropRecords
import Testing

@Suite(.announcesSkips) struct RecordTests {
    static let designExample = """
        {"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},\
        "selection":{"x":75,"y":75,"width":150,"height":150},"mode":"aspectFit",\
        "expected":{"x":1000,"y":500,"width":2000,"height":2000}}
        """

    @Test func designExampleReplaysAndPasses() throws {
        let record = try CropRecord(jsonLine: Self.designExample)
        let outcome = record.replay()
        #expect(record.mismatches(outcome).isEmpty)
        let line = try JSONValue(parsing: record.jsonLine(replaying: outcome))
        #expect(
            line["result"]
                == .object([
                    .init("x", .number(1000)), .init("y", .number(500)),
                    .init("width", .number(2000)),
                    .init("height", .number(2000)),
                ]))
        #expect(line["expected"] != nil && line["reason"] == nil)
    }

    @Test func wrongExpectationIsReportedFieldByField() throws {
        let line = Self.designExample.replacingOccurrences(
            of: "\"width\":2000", with: "\"width\":2001")
        let record = try CropRecord(jsonLine: line)
        #expect(record.mismatches(record.replay()) == ["width: expected 2001, got 2000"])
    }

    @Test func nonFiniteStringsAreNumbers() throws {
        let line = """
            {"source":{"width":4000,"height":3000},"viewport":{"width":"inf","height":300},\
            "selection":{"x":"nan","y":0,"width":1,"height":"-inf"},"expected":null}
            """
        let record = try CropRecord(jsonLine: line)
        #expect(record.request.viewport.width == .infinity)
        #expect(record.request.selection.x.isNaN)
        guard case .failure(let rejection) = record.replay() else {
            Issue.record("not rejected")
            return
        }
        #expect(rejection.code == "nonFinite")
        #expect(record.mismatches(record.replay()).isEmpty)
        let out = try JSONValue(parsing: record.jsonLine(replaying: record.replay()))
        #expect(out["result"] == .null)
        #expect(out["reason"]?["code"] == .string("nonFinite"))
        // The non-finite inputs are written back as given.
        #expect(out["viewport"]?["width"] == .string("inf"))
    }

    @Test func orientationIsValidatedAfterTheOtherRules() throws {
        func reason(_ extra: String) throws -> String? {
            let line = """
                {"source":{"width":40,"height":30},"viewport":{"width":40,"height":30},\
                "selection":{"x":0,"y":0,"width":\(extra),"height":1},"orientation":9}
                """
            guard case .failure(let r) = try CropRecord(jsonLine: line).replay() else { return nil }
            return r.code
        }
        #expect(try reason("1") == "orientationOutOfRange")
        #expect(try reason("-1") == "selectionSizeNotPositive")
    }

    @Test func orientedRecordsReportTheStoredRect() throws {
        let line = """
            {"source":{"width":3000,"height":4000},"viewport":{"width":400,"height":300},\
            "selection":{"x":0,"y":0,"width":100,"height":300},"orientation":6,\
            "expected":{"x":0,"y":0,"width":1000,"height":3000,"stored":{"x":0,"y":3000,"width":3000,"height":1000}}}
            """
        let record = try CropRecord(jsonLine: line)
        #expect(record.mismatches(record.replay()).isEmpty)
        let out = try JSONValue(parsing: record.jsonLine(replaying: record.replay()))
        #expect(out["result"]?["stored"]?["y"] == .number(3000))
    }

    @Test func unknownFieldsAreKeptAndTheAppsResultIsRenamed() throws {
        let line = """
            {"note":"from a bug report","source":{"width":10,"height":10},"viewport":{"width":10,"height":10},\
            "selection":{"x":0,"y":0,"width":10,"height":10},"result":{"x":0,"y":0,"width":10,"height":11}}
            """
        let record = try CropRecord(jsonLine: line)
        let out = try JSONValue(parsing: record.jsonLine(replaying: record.replay()))
        #expect(out["note"] == .string("from a bug report"))
        #expect(out["recordedResult"]?["height"] == .number(11))
        #expect(out["result"]?["height"] == .number(10))
    }

    @Test(arguments: [
        ("[]", "a record must be a JSON object"),
        (
            "{\"viewport\":{\"width\":1,\"height\":1}}",
            "source must be an object {\"width\":w,\"height\":h}"
        ),
        (
            "{\"source\":{\"width\":1},\"viewport\":{\"width\":1,\"height\":1}}",
            "source.height is missing"
        ),
        (
            "{\"source\":{\"width\":1,\"height\":1},\"viewport\":{\"width\":1,\"height\":1},\"selection\":{\"x\":0,\"y\":0,\"width\":1,\"height\":1},\"mode\":\"fit\"}",
            "mode must be one of aspectFit, aspectFill, scaleToFill, center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight"
        ),
        ("{\"source\":", "not valid JSON: unexpected end of JSON at byte 11"),
    ])
    func invalidLinesSayWhy(line: String, message: String) {
        #expect(throws: CropRecordError(description: message)) { try CropRecord(jsonLine: line) }
    }

    @Test func recordWrittenForARequestReplaysToTheSameResult() throws {
        let request = CropRequest(
            sourceSize: Size(width: 4032, height: 3024), viewport: Size(width: 390, height: 844),
            selection: Rect(x: 10.5, y: 300.25, width: 200, height: 150), mode: .aspectFill,
            imageScale: 3,
            zoom: Zoom(scale: 2.5, offset: Vector(dx: 12.5, dy: -3)), orientation: .left)
        let result = try request.map()
        let record = CropRecord(request: request, expected: nil)
        let line = record.json.text
        let replayed = try CropRecord(jsonLine: line)
        #expect(replayed.request == request)
        #expect(try replayed.replay().get() == result)
    }

    @Test func jsonNumbersReadExactly() throws {
        #expect(try JSONValue(parsing: "0.1") == .number(text: "0.1", value: 0.1))
        #expect(try JSONValue(parsing: "1e400") == .number(text: "1e400", value: .infinity))
        #expect(try JSONValue(parsing: "-0") == .number(text: "-0", value: -0.0))
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: "01") }
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: "NaN") }
        #expect(try JSONValue(parsing: "\"\\u00e9\\ud83d\\ude00\"") == .string("é😀"))
    }
}

/// The JSON codec's fast paths against the slow, obviously right ones.
@Suite(.announcesSkips) struct JSONCodecTests {
    /// Numbers with at most 15 significant digits and 22 decimals are read
    /// by one correctly rounded division; every other by `Double(String)`.
    /// Both must give what `Double(String)` gives.
    @Test func numbersReadAsDoubleReadsThem() throws {
        var generator = SeededGenerator(seed: 0x150)
        for _ in 0..<20_000 {
            let digits = Int(generator.next() % 20) + 1
            var text = generator.next() % 2 == 0 ? "-" : ""
            let point = Int(generator.next() % UInt64(digits + 1))
            for i in 0..<digits {
                if i == point && i > 0 { text += "." }
                let digit = i == 0 && point != 1 ? 1 + generator.next() % 9 : generator.next() % 10
                text += String(digit)
            }
            if generator.next() % 10 == 0 { text += "e\(Int(generator.next() % 40) - 20)" }
            let parsed = try JSONValue(parsing: text)
            guard case .number(let kept, let value) = parsed else {
                Issue.record("\(text) is not a number")
                continue
            }
            #expect(kept == text)
            let expected = try #require(Double(text))
            #expect(
                value.bitPattern == expected.bitPattern, "\(text): \(value) against \(expected)")
        }
        for text in ["0", "-0", "0.1", "0.3", "123456789012345.6", "1e400", "-1e400", "5e-324"] {
            guard case .number(_, let value) = try JSONValue(parsing: text) else { continue }
            #expect(
                value.bitPattern
                    == (Double(text) ?? (text.hasPrefix("-") ? -.infinity : .infinity)).bitPattern,
                "\(text)")
        }
    }

    /// Strings round-trip through escapes, and control characters come out
    /// escaped.
    @Test func stringsRoundTrip() throws {
        let text = #"{"a":"plain","b":"q\"b\\s\/n\nt\tu\u00e9\ud83d\ude00","c":""}"#
        let value = try JSONValue(parsing: text)
        #expect(value["b"] == .string("q\"b\\s/n\nt\tué😀"))
        #expect(try JSONValue(parsing: value.text) == value)
        #expect(JSONValue.string("\u{01}").text == #""\u0001""#)
    }
}

extension RecordTests {
    /// A field given twice is ambiguous and refused; a source size that a
    /// Double cannot hold exactly is refused, not rounded.
    @Test func ambiguousAndInexactRecordsAreRefused() {
        let twice =
            #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150},"orientation":1,"orientation":6}"#
        // Refused by the JSON reader itself, at any depth (round five).
        #expect(
            throws: CropRecordError(
                description:
                    #"not valid JSON: the member "orientation" is given twice (ambiguous); give it once at byte 147"#
            )
        ) {
            try CropRecord(jsonLine: twice)
        }
        let inexact =
            #"{"source":{"width":9007199254740993,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150}}"#
        #expect(throws: CropRecordError.self) { try CropRecord(jsonLine: inexact) }
        let exact =
            #"{"source":{"width":9007199254740992,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150}}"#
        #expect((try? CropRecord(jsonLine: exact)) != nil)
        #expect(
            (try? CropRecord(
                jsonLine:
                    #"{"source":{"width":4000.0,"height":3e3},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150}}"#
            )) != nil)
    }

    /// A record with an `angle` replays to the straightened output rect `O`,
    /// and a record built from a turned request writes its angle.
    @Test func turnedRecordsReplayTheirOutputRect() throws {
        let line = """
            {"source":{"width":40,"height":30},"viewport":{"width":400,"height":300},\
            "selection":{"x":50,"y":0,"width":300,"height":300},"angle":90,\
            "expected":{"x":5,"y":0,"width":30,"height":30}}
            """
        let record = try CropRecord(jsonLine: line)
        #expect(record.request.angle == 90)
        let answer = record.answer()
        guard case .turned(.success(let crop)) = answer else {
            Issue.record("expected a turned answer, got \(answer)")
            return
        }
        #expect(crop.rect == PixelRect(x: 5, y: 0, width: 30, height: 30))
        #expect(record.mismatches(answer).isEmpty)
        let replayed = record.replayed(answer: answer)
        #expect(replayed["result"]?["quad"] != nil && replayed["result"]?["outputSize"] != nil)
        // The unturned replay refuses it rather than ignore the angle.
        #expect(record.replay() == .failure(.turned(angle: 90)))

        let wrong = try CropRecord(
            jsonLine: line.replacingOccurrences(of: "{\"x\":5,", with: "{\"x\":4,"))
        #expect(wrong.mismatches(wrong.answer()) == ["x: expected 4, got 5"])

        let written = CropRecord(request: record.request, expected: nil)
        #expect(written.json["angle"] == .number(90))
        let again = try CropRecord(json: written.json)
        #expect(again.answer() == answer)

        let notFinite = try CropRecord(
            jsonLine: line.replacingOccurrences(of: "\"angle\":90", with: "\"angle\":\"nan\""))
        #expect(notFinite.answer().rejection == .nonFinite(field: "angle"))
    }
}
