import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// A batch line takes one region, as `crop` does: "inside" with "pixels"
/// (which wrote the whole photo for a 50x50 rect, exit 0) or with a view
/// selection is refused, and so is a line with no region at all (which
/// was told "viewport must be an object"); a variant's own region replaces
/// the line's whole region.
@Suite struct BatchRegionTests {
    static func run(_ lines: [String]) throws -> (status: Int32, report: [JSONValue], folder: URL) {
        let folder = try temporaryFolder()
        #expect(
            cropkit("fixture", "400x300", "-o", folder.appendingPathComponent("a.png").path).status
                == 0)
        let manifest = folder.appendingPathComponent("m.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        let report = folder.appendingPathComponent("r.jsonl").path
        let run = cropkit("batch", manifest, "--report", report)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        return (
            run.status, try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) },
            folder
        )
    }

    @Test(arguments: [
        (
            #"{"input":"a.png","output":"o.png","pixels":{"x":0,"y":0,"width":50,"height":50},"inside":true}"#,
            "do not go together"
        ),
        (
            #"{"input":"a.png","output":"o.png","viewport":{"width":100,"height":100},"selection":{"x":0,"y":0,"width":10,"height":10},"inside":true,"angle":2}"#,
            "do not go together"
        ),
        (
            #"{"input":"a.png","output":"o.png","pixels":{"x":0,"y":0,"width":50,"height":50},"viewport":{"width":100,"height":100},"selection":{"x":0,"y":0,"width":10,"height":10}}"#,
            "do not go together"
        ),
        (#"{"input":"a.png","output":"o.png","angle":3,"width":300}"#, "no region"),
        (#"{"input":"a.png","output":"o.png"}"#, "no region"),
        (
            #"{"input":"a.png","pixels":{"x":0,"y":0,"width":50,"height":50},"inside":true,"variants":[{"output":"o.png"}]}"#,
            "variant 1: \"inside\" and \"pixels\" do not go together"
        ),
    ])
    func aLineTakesOneRegion(line: String, message: String) throws {
        let (status, report, folder) = try Self.run([line])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(status == 1)
        guard case .string(let error)? = report.first?["error"] else {
            Issue.record("no error in \(report)")
            return
        }
        #expect(error.contains(message), "\(error)")
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("o.png").path))
        // crop refuses the same request.
        if line.contains("\"inside\":true"), line.contains("pixels"), !line.contains("variants") {
            let crop = cropkit(
                "crop", folder.appendingPathComponent("a.png").path, "-o",
                folder.appendingPathComponent("c.png").path, "--pixels", "0,0,50,50", "--inside")
            #expect(crop.status == 64)
        }
    }

    @Test func aVariantsRegionReplacesTheLines() throws {
        let line =
            #"{"input":"a.png","pixels":{"x":0,"y":0,"width":50,"height":50},"variants":[{"output":"p.png"},{"output":"t.png","angle":3,"inside":true}]}"#
        let (status, report, folder) = try Self.run([line])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(status == 0, "\(report)")
        guard case .array(let variants)? = report.first?["variants"], variants.count == 2 else {
            Issue.record("\(report)")
            return
        }
        func number(_ value: JSONValue?) -> Double? {
            if case .number(_, let number)? = value { return number }
            return nil
        }
        #expect(number(variants[0]["width"]) == 50 && number(variants[0]["height"]) == 50)
        // The largest rect inside the 400x300 image turned 3 degrees.
        #expect((number(variants[1]["width"]) ?? 0) > 300, "\(variants[1])")
    }
}
