import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// `cropkit crop`, `cropkit batch` and the library are one pipeline: the same
/// request gives the same pixels whichever way it comes, on every EXIF
/// orientation, with the file's orientation or another, with and without an
/// aspect ratio. (They once differed: `batch` took `--aspect source` from the
/// file's orientation, `crop` from the request's.)
@Suite(.announcesSkips) struct PipelineTests {
    static let aspects: [String?] = [nil, "source", "4:5"]

    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        arguments: 1...8)
    func cropBatchAndLibraryAgree(fileOrientation: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestData.path("exif/generated/testorig_orientation\(fileOrientation).jpg")
        let selection = Rect<ViewPoints>(x: 60, y: 80, width: 150, height: 90)
        var lines: [String] = []
        var expected: [(name: String, image: RasterImage)] = []
        // The file's own orientation, and one given that differs from it.
        for given in [nil, fileOrientation % 8 + 1] {
            for aspect in Self.aspects {
                let name =
                    "o\(given ?? 0)-\(aspect?.replacingOccurrences(of: ":", with: "x") ?? "none")"
                // The library.
                let source = try ImageSource.open(path: input)
                let request = CropRequest(
                    sourceSize: Size(width: 1, height: 1), viewport: Size(width: 300, height: 300),
                    selection: selection)
                let job = CropJob(
                    region: .view(request, aspect: aspect.flatMap(AspectChoice.init(parsing:))),
                    orientation: given.flatMap(EXIFOrientation.init(rawValue:)))
                let library = folder.appendingPathComponent("lib-\(name).png").path
                _ = try job.plan(for: source).write(to: library)
                expected.append((name, try PNGDecoder.decode(path: library)))
                // The command line.
                var arguments = [
                    "crop", input, "-o", folder.appendingPathComponent("cli-\(name).png").path,
                    "--viewport", "300x300", "--selection", "60,80,150,90",
                ]
                if let aspect { arguments += ["--aspect", aspect] }
                if let given { arguments += ["--orientation", "\(given)"] }
                let run = cropkit(arguments)
                #expect(run.status == 0, "\(name): \(run.err)")
                // A batch line.
                var line =
                    #"{"input":"\#(input)","output":"out/batch-\#(name).png","viewport":{"width":300,"height":300},"selection":{"x":60,"y":80,"width":150,"height":90}"#
                if let aspect { line += #","aspect":"\#(aspect)""# }
                if let given { line += #","orientation":\#(given)"# }
                lines.append(line + "}")
            }
        }
        let manifest = folder.appendingPathComponent("manifest.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        let batch = cropkit("batch", manifest)
        #expect(batch.status == 0, "\(batch.err)")
        for (name, image) in expected {
            let cli = try PNGDecoder.decode(
                path: folder.appendingPathComponent("cli-\(name).png").path)
            let batched = try PNGDecoder.decode(
                path: folder.appendingPathComponent("out/batch-\(name).png").path)
            #expect(cli == image, "crop differs from the library: \(name)")
            #expect(batched == image, "batch differs from the library: \(name)")
        }
        #expect(expected.count == 6)
    }
}
