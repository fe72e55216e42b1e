import CropImaging
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// One table of requests, each run as a `crop` command and as a `batch`
/// line: both write the same pixels, or both refuse. (A batch line once
/// wrote the whole photo for a request `crop` refused, and refused a turned
/// HEIC only after decoding it.)
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct CropBatchAgreementTests {
    /// A request: its source, `crop`'s options, the same as manifest members
    /// (without "input" and "output"), and the output's extension.
    struct Request: Sendable, CustomTestStringConvertible {
        var source: String
        var options: [String]
        var members: String
        var output: String
        /// Whether both write it (else both refuse it).
        var writes = true
        var testDescription: String { "\(source) \(options.joined(separator: " ")) -> .\(output)" }
    }

    static let jpeg = "camera/samsung_galaxys_orient6_gps.jpg"
    static let png = "pngsuite/generated/coords_rgba8_251x97.png"
    static let heic = "heif/pillow-heif/arrow.heic"

    static let requests: [Request] = [
        // Regions.
        .init(
            source: png, options: ["--pixels", "3,5,20,20"],
            members: #""pixels":{"x":3,"y":5,"width":20,"height":20}"#, output: "png"),
        .init(
            source: jpeg, options: ["--pixels", "16,16,32,32"],
            members: #""pixels":{"x":16,"y":16,"width":32,"height":32}"#, output: "jpg"),
        .init(
            source: jpeg, options: ["--pixels", "3,5,41,37"],
            members: #""pixels":{"x":3,"y":5,"width":41,"height":37}"#, output: "png"),
        .init(
            source: heic, options: ["--pixels", "100,200,300,200"],
            members: #""pixels":{"x":100,"y":200,"width":300,"height":200}"#, output: "heic"),
        .init(
            source: heic, options: ["--pixels", "100,200,300,200"],
            members: #""pixels":{"x":100,"y":200,"width":300,"height":200}"#, output: "jpg"),
        .init(
            source: png,
            options: ["--viewport", "300x300", "--selection", "75,75,150,150"],
            members:
                #""viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150}"#,
            output: "png"),
        .init(
            source: jpeg,
            options: ["--viewport", "300x300", "--selection", "75,75,150,150", "--aspect", "1:1"],
            members:
                #""viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150},"aspect":"1:1""#,
            output: "jpg"),
        .init(
            source: jpeg,
            options: [
                "--viewport", "300x300", "--selection", "10,20,100,90", "--mode", "aspectFill",
                "--zoom", "2", "--offset", "30,40",
            ],
            members:
                #""viewport":{"width":300,"height":300},"selection":{"x":10,"y":20,"width":100,"height":90},"mode":"aspectFill","zoom":{"scale":2,"offset":{"x":30,"y":40}}"#,
            output: "png"),
        .init(
            source: jpeg, options: ["--pixels", "3,5,41,37", "--orientation", "1"],
            members: #""pixels":{"x":3,"y":5,"width":41,"height":37},"orientation":1"#,
            output: "png"),
        // Turns and sizes.
        .init(
            source: jpeg, options: ["--pixels", "0,0,40,40", "--width", "33"],
            members: #""pixels":{"x":0,"y":0,"width":40,"height":40},"width":33"#, output: "jpg"),
        .init(
            source: png,
            options: ["--pixels", "0,0,60,40", "--fit", "30x30", "--filter", "bilinear"],
            members:
                #""pixels":{"x":0,"y":0,"width":60,"height":40},"fit":"30x30","filter":"bilinear""#,
            output: "png"),
        .init(
            source: png, options: ["--angle", "3", "--inside", "--aspect", "1:1"],
            members: #""angle":3,"inside":true,"aspect":"1:1""#, output: "png"),
        .init(
            source: jpeg,
            options: ["--angle", "-2", "--pixels", "10,12,40,40", "--fill", "#ff0000"],
            members:
                ##""angle":-2,"pixels":{"x":10,"y":12,"width":40,"height":40},"fill":"#ff0000""##,
            output: "jpg"),
        .init(
            source: png, options: ["--pixels", "0,0,20,20", "--circle"],
            members: #""pixels":{"x":0,"y":0,"width":20,"height":20},"circle":true"#,
            output: "png"),
        .init(
            source: heic, options: ["--pixels", "10,20,300,200", "--size", "150x100"],
            members: #""pixels":{"x":10,"y":20,"width":300,"height":200},"size":"150x100""#,
            output: "jpg"),
        // Refused by both.
        .init(
            source: png, options: ["--pixels", "0,0,50,50", "--inside"],
            members: #""pixels":{"x":0,"y":0,"width":50,"height":50},"inside":true"#,
            output: "png", writes: false),
        .init(
            source: png, options: ["--pixels", "240,90,20,20"],
            members: #""pixels":{"x":240,"y":90,"width":20,"height":20}"#, output: "png",
            writes: false),
        .init(
            source: png, options: ["--pixels", "3,5,0,20"],
            members: #""pixels":{"x":3,"y":5,"width":0,"height":20}"#, output: "png", writes: false),
        .init(
            source: heic, options: ["--pixels", "0,0,300,200", "--angle", "3"],
            members: #""pixels":{"x":0,"y":0,"width":300,"height":200},"angle":3"#,
            output: "heic", writes: false),
        .init(
            source: heic, options: ["--pixels", "0,0,300,200", "--width", "100"],
            members: #""pixels":{"x":0,"y":0,"width":300,"height":200},"width":100"#,
            output: "heic", writes: false),
        .init(
            source: jpeg, options: ["--pixels", "0,0,30,30"],
            members: #""pixels":{"x":0,"y":0,"width":30,"height":30}"#, output: "heic",
            writes: false),
        .init(
            source: png,
            options: ["--viewport", "300x300", "--selection", "0,0,10,10"],
            members:
                #""viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":10,"height":10}"#,
            output: "png", writes: false),
        .init(
            source: png, options: ["--pixels", "0,0,60,40", "--width", "0"],
            members: #""pixels":{"x":0,"y":0,"width":60,"height":40},"width":0"#, output: "png",
            writes: false),
        .init(
            source: png, options: ["--angle", "3", "--inside", "--aspect", "1000:1"],
            members: #""angle":3,"inside":true,"aspect":"1000:1""#, output: "png", writes: false),
    ]

    @Test(arguments: requests)
    func cropAndBatchAgree(_ request: Request) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestData.path(request.source)
        let cropOutput = folder.appendingPathComponent("crop.\(request.output)").path
        let batchOutput = folder.appendingPathComponent("batch.\(request.output)").path
        let crop = cropkit(["crop", input, "-o", cropOutput] + request.options)

        let manifest = folder.appendingPathComponent("m.jsonl")
        let line = #"{"input":"\#(input)","output":"\#(batchOutput)",\#(request.members)}"#
        try Data(line.utf8).write(to: manifest)
        let reportPath = folder.appendingPathComponent("r.jsonl").path
        let batch = cropkit(["batch", manifest.path, "--report", reportPath])
        let report = try JSONValue(
            parsing: (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "{}")
        let lineWritten = report["status"] == .string("written")

        #expect(crop.status == 0 ? request.writes : !request.writes, "crop: \(crop.err)")
        #expect(
            (crop.status == 0) == lineWritten,
            "crop exit \(crop.status) (\(crop.err)); batch line \(report)")
        #expect((batch.status == 0) == lineWritten)
        guard crop.status == 0, lineWritten else {
            // Neither wrote anything.
            #expect(!FileManager.default.fileExists(atPath: cropOutput))
            #expect(!FileManager.default.fileExists(atPath: batchOutput))
            return
        }
        let a = try ImageSource.open(path: cropOutput).decode().image
        let b = try ImageSource.open(path: batchOutput).decode().image
        #expect(a.width == b.width && a.height == b.height)
        #expect(a.colorType == b.colorType && a.bitDepth == b.bitDepth)
        #expect(a.samples == b.samples, "\(request.testDescription): the pixels differ")
    }
}
