import CropGeometry
import CropImaging
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// A batch line takes one region, as `crop` does: "inside" with "pixels"
/// (which wrote the whole photo for a 50x50 rect, exit 0) or with a view
/// selection is refused, and so is a line with no region at all (which
/// was told "viewport must be an object"); a variant's own region replaces
/// the line's whole region.
@Suite(.announcesSkips) struct BatchRegionTests {
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

    /// Runs the one-line manifest `line`, expecting it to fail with an error
    /// that contains `message`; the folder it ran in, for the caller to look
    /// in and remove.
    static func expectFailure(
        of line: String, saying message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> URL {
        let (status, report, folder) = try run([line])
        #expect(status == 1, sourceLocation: sourceLocation)
        guard case .string(let error)? = report.first?["error"] else {
            Issue.record("no error in \(report)", sourceLocation: sourceLocation)
            return folder
        }
        #expect(error.contains(message), "\(error)", sourceLocation: sourceLocation)
        return folder
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
        let folder = try Self.expectFailure(of: line, saying: message)
        defer { try? FileManager.default.removeItem(at: folder) }
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

    /// An unknown member names the closest known one, as an unknown option
    /// does ("pixel" was told "viewport must be an object").
    @Test(arguments: [
        (#""pixel":{"x":0,"y":0,"width":8,"height":8}"#, #"did you mean "pixels"?"#),
        (#""pixels":{"x":0,"y":0,"width":8,"height":8},"angel":3"#, #"did you mean "angle"?"#),
        (#""pixels":{"x":0,"y":0,"widht":8,"height":8}"#, #"did you mean "pixels.width"?"#),
    ])
    func anUnknownMemberNamesTheClosest(members: String, suggestion: String) throws {
        let folder = try Self.expectFailure(
            of: #"{"input":"a.png","output":"o.png","# + members + "}", saying: suggestion)
        try? FileManager.default.removeItem(at: folder)
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

/// An output format that cannot hold the crop is refused when the job is
/// planned, before anything is decoded, by the library, `crop` and `batch`
/// alike: HEIC output of a turned, resized or circled crop, or of a PNG. A
/// batch line found the turned case only after decoding the region.
@Suite(.announcesSkips) struct OutputFormatValidationTests {
    @Test(arguments: [
        (CropJob.Region.largestInside(aspect: nil), 2.0, nil as OutputSizeRule?, false),
        (.pixels(PixelRect(x: 0, y: 0, width: 40, height: 30)), 0, .width(20), false),
        (.pixels(PixelRect(x: 0, y: 0, width: 40, height: 30)), 0, nil, true),
    ])
    func heicOutputOfAResampledCropIsRefusedWhenPlanned(
        region: CropJob.Region, angle: Double, size: OutputSizeRule?, circle: Bool
    ) throws {
        let source = try ImageSource(
            ImageInput(bytes: try DemoPhoto.heic(width: 128, height: 96, tile: 64), name: "a.heic"))
        var job = CropJob(region: region, format: .heif(HEIFEncoder()))
        job.resampling = CropJob.Resampling(angle: angle, size: size)
        job.resampling.ellipse = circle
        #expect(throws: CropPlanError.self) { try job.plan(for: source) }
    }

    @Test func crossFormatAndBatchRefuseAlike() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("a.png").path
        #expect(cropkit("fixture", "64x48", "-o", png).status == 0)
        let crop = cropkit(
            "crop", png, "-o", folder.appendingPathComponent("o.heic").path, "--pixels", "0,0,8,8")
        #expect(crop.status == 2)
        #expect(crop.err.contains("HEIC output is made from a HEIC source only"), "\(crop.err)")
        let heic = folder.appendingPathComponent("p.heic").path
        try Data(try DemoPhoto.heic(width: 128, height: 96, tile: 64)).write(
            to: URL(fileURLWithPath: heic))
        let manifest = folder.appendingPathComponent("m.jsonl").path
        try Data(
            [
                #"{"input":"p.heic","output":"t.heic","angle":2,"inside":true}"#,
                #"{"input":"a.png","output":"u.heic","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
            ].joined(separator: "\n").utf8
        ).write(to: URL(fileURLWithPath: manifest))
        let run = cropkit("batch", manifest)
        #expect(run.status == 1)
        #expect(run.out.contains("not HEIC"), "\(run.out)")
        #expect(run.out.contains("HEIC output is made from a HEIC source only"), "\(run.out)")
        for name in ["t.heic", "u.heic"] {
            #expect(
                !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path))
        }
    }
}
