import CropGeometry
import CropImaging
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// Animations (issue 53): every frame of a GIF, an APNG or an animated
/// WebP cut to the rect, the timeline kept, into each of the three; the
/// hostile corpus refused with its reason.
@Suite(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct AnimationCropTests {
    /// The generated "coordinates" animations and real ones of every kind.
    static let sources = [
        "animated/generated/gif_coords_97x61_5f_loop0.gif",
        "animated/generated/gif_coords_97x61_7f_interlaced.gif",
        "animated/generated/gif_coords_301x203_6f_loop1_subrects.gif",
        "animated/generated/apng_coords_rgba8_97x61_4f_loop1_hidden_default.png",
        "animated/generated/apng_coords_pal8_97x61_4f_loop0.png",
        "animated/generated/apng_coords_rgba8_301x203_7f_loop3_subrects.png",
        "animated/generated/webp_coords_301x203_7f_loop3_subrects_lossless.webp",
        "animated/generated/webp_coords_97x61_5f_loop0_lossless.webp",
        "animated/pillow/iss634.gif", "animated/pillow/iss634.apng", "animated/pillow/iss634.webp",
        "animated/pillow/dispose_prev.gif", "animated/wuffs/animated-red-blue.gif",
    ]

    /// Into its own container, at rects on and off any grid: the same
    /// frame count, durations and plays, read back by CropKit's reader,
    /// and every displayed frame equal to the source's cut to the rect, by
    /// Pillow's compositor where it is installed, which also reads back the
    /// frames, plays and duration the report claims.
    @Test func everyFrameIsTheSourcesCut() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let python = Pillow.python
        var pillowChecked = 0
        for source in Self.sources {
            let path = TestData.path(source)
            let animated = try #require(try AnimatedImage.open(path: path))
            let size = animated.size
            let rects = [
                PixelRect<StoredPixels>(size: size),
                PixelRect(
                    x: size.width / 4 + 1, y: size.height / 4 + 1, width: size.width / 2,
                    height: size.height / 2 - 1),
                PixelRect(x: size.width - 3, y: size.height - 3, width: 3, height: 3),
            ]
            let ext = URL(fileURLWithPath: source).pathExtension
            for rect in rects {
                let output = folder.appendingPathComponent("out.\(ext)").path
                let run = cropkit(
                    "crop", path, "--pixels", "\(rect.x),\(rect.y),\(rect.width),\(rect.height)",
                    "-o", output,
                    "--force", "--json")
                #expect(run.status == 0, "\(source) \(rect): \(run.err)")
                let report = try JSONValue(parsing: run.out)
                // The timeline, under the output format's name.
                func claimed(_ key: String) -> Int? {
                    guard case .string(let format)? = report["written"]?["format"],
                        case .number(_, let value)? = report["written"]?[format]?[key]
                    else { return nil }
                    return Int(value)
                }
                expectNoLeaks(inImagesWrittenBy: ["crop", path, "-o", output], run)
                let written = try #require(
                    try AnimatedImage.open(path: output), "\(source) \(rect)")
                #expect(written.size == rect.size)
                #expect(written.animation.plays == animated.animation.plays, "\(source)")
                #expect(
                    written.animation.frames.count == animated.animation.frames.count, "\(source)")
                for (a, b) in zip(animated.animation.frames, written.animation.frames) {
                    #expect(a.duration.sameLength(as: b.duration), "\(source) \(rect)")
                }
                if let python {
                    let check = Process()
                    check.executableURL = URL(fileURLWithPath: python)
                    let script = TestData.repositoryPath("scripts/animation-check.py")
                    check.arguments = [
                        script, path, output, "\(rect.x),\(rect.y),\(rect.width),\(rect.height)",
                    ]
                    let pipe = Pipe()
                    check.standardOutput = pipe
                    try check.run()
                    let said = String(
                        decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    check.waitUntilExit()
                    #expect(check.terminationStatus == 0, "\(source) \(rect): \(said)")
                    // What the report claims is what Pillow reads back:
                    // frames, plays, the summed durations (to a millisecond
                    // a frame: the report rounds each down).
                    let read = said.split(whereSeparator: \.isWhitespace).dropFirst().compactMap {
                        Int($0)
                    }
                    #expect(read.count == 3, "\(said)")
                    if read.count == 3 {
                        #expect(claimed("frames") == read[0], "\(source) \(rect): \(run.out)")
                        #expect(claimed("plays") == read[1], "\(source) \(rect): \(run.out)")
                        let total = claimed("durationMs") ?? -1
                        #expect(
                            abs(total - read[2]) <= read[0], "\(source) \(rect): \(run.out) \(said)"
                        )
                    }
                    pillowChecked += 1
                }
            }
        }
        _ = TestGate.holds(python != nil, else: "without .build/venv (Pillow's compositor check)")
        #expect(python == nil || pillowChecked == Self.sources.count * 3)
    }

    /// A frame inside the rect keeps its coded bytes, and the report
    /// counts them: every frame of a crop of the whole canvas is copied.
    @Test func framesInsideTheRectAreCopied() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = TestData.path("animated/pillow/iss634.gif")
        let animated = try #require(try AnimatedImage.open(path: path))
        let size = animated.size
        let same = cropkit(
            "crop", path, "--pixels", "0,0,\(size.width),\(size.height)", "-o",
            folder.appendingPathComponent("b.gif").path)
        #expect(same.out.contains("42 copied"), "\(same.out)")
    }

    /// A still format takes one frame, chosen: without --frame it is a
    /// usage error naming the choice; with it, any still format.
    @Test func aStillFormatNeedsAFrame() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = TestData.path("animated/generated/gif_coords_97x61_5f_loop0.gif")
        let refused = cropkit(
            "crop", path, "--pixels", "1,1,20,20", "-o", folder.appendingPathComponent("a.jpg").path
        )
        #expect(refused.status == 64)
        #expect(refused.err.contains("--frame N"), "\(refused.err)")
        let still = cropkit(
            "crop", path, "--frame", "2", "--pixels", "1,1,20,20", "-o",
            folder.appendingPathComponent("b.jpg").path)
        #expect(still.status == 0, "\(still.err)")
        let source = try ImageSource.open(path: folder.appendingPathComponent("b.jpg").path)
        #expect(source.storedSize == PixelSize(width: 20, height: 20))
        let missing = cropkit(
            "crop", path, "--frame", "9", "--pixels", "1,1,20,20", "-o",
            folder.appendingPathComponent("c.png").path)
        #expect(missing.status == 2)
        #expect(missing.err.contains("no frame 9"), "\(missing.err)")
    }

    /// Every hostile animation EXPECTED.tsv says to refuse is refused with
    /// exit 2 and a reason, and writes nothing.
    @Test func hostileAnimationsAreRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let table = try String(
            contentsOfFile: TestData.path("animated/EXPECTED.tsv"), encoding: .utf8)
        var refused = 0
        for line in table.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            // "refuse, or keep the first and say so": either is careful.
            guard fields.count > 14, fields[14].hasPrefix("refuse"),
                !fields[14].contains("(or keep")
            else { continue }
            let output = folder.appendingPathComponent("out\(refused).png").path
            let run = cropkit(
                "crop", TestData.path(String(fields[0])), "--pixels", "0,0,1,1", "-o", output)
            #expect(run.status == 2, "\(fields[0]): \(run.out) \(run.err)")
            #expect(run.err.hasPrefix("error: "), "\(fields[0])")
            #expect(!FileManager.default.fileExists(atPath: output), "\(fields[0])")
            refused += 1
        }
        #expect(refused >= 40)
    }

    /// `info` lists an animation's timeline from the container, no pixel
    /// decoded: frames, plays, durations, disposal, blend, frame rects and
    /// how many are lossless, as EXPECTED.tsv's independent parser read them;
    /// the runs as the text report says them.
    @Test func infoListsTheFrames() throws {
        let text = cropkit("info", TestData.path("animated/pillow/iss634.apng"))
        #expect(
            text.out.contains("disposal     none*5 previous none*34 background\n"), "\(text.out)")
        #expect(text.out.contains("blend        source over*40\n"), "\(text.out)")
        let expected: [(String, [String])] = [
            (
                "animated/pillow/iss634.apng",
                [
                    "\"frames\":41", "\"plays\":0", "\"durationMs\":2730",
                    #""disposal":[{"value":"none","frames":5},{"value":"previous","frames":1},"#
                        + #"{"value":"none","frames":34},{"value":"background","frames":1}]"#,
                    #""blend":[{"value":"source","frames":1},{"value":"over","frames":40}]"#,
                    "\"losslessFrames\":41",
                    "\"hiddenDefaultImage\":false",
                ]
            ),
            (
                "animated/pillow/dispose_bgnd_transparency.gif",
                [
                    "\"frames\":10", "\"plays\":0",
                    #""durations":[{"milliseconds":2000,"numerator":200,"denominator":100,"frames":1},"#
                        + #"{"milliseconds":200,"numerator":20,"denominator":100,"frames":2},"#
                        + #"{"milliseconds":500,"numerator":50,"denominator":100,"frames":1},"#,
                    #""disposal":[{"value":"none","frames":1},{"value":"background","frames":8},"#
                        + #"{"value":"none","frames":1}]"#,
                    #""frameRects":[{"x":0,"y":0,"width":27,"height":32,"frames":1},"#
                        + #"{"x":22,"y":15,"width":14,"height":17,"frames":1}"#,
                ]
            ),
            (
                "animated/generated/apng_coords_rgba8_97x61_4f_loop1_hidden_default.png",
                ["\"plays\":1", "\"hiddenDefaultImage\":true", "\"format\":\"png\""]
            ),
            (
                "animated/generated/webp_coords_97x61_4f_mixed_lossy_lossless.webp",
                ["\"frames\":4", "\"losslessFrames\":2"]
            ),
        ]
        for (file, members) in expected {
            let run = cropkit("info", "--json", TestData.path(file))
            #expect(run.status == 0, "\(file): \(run.err)")
            for member in members {
                #expect(run.out.contains(member), "\(file): \(member) in \(run.out)")
            }
        }
    }

    /// `leaks` reads animations: a frame reaching beyond the canvas and
    /// bytes after the GIF trailer, frame data in a still PNG are findings
    /// (exit 1); the crops
    /// CropKit writes have none (checked above for every output).
    @Test func leaksFindsWhatAnAnimationHides() throws {
        let beyond = cropkit("leaks", TestData.path("animated/pillow/test_extents.gif"))
        #expect(beyond.status == 1)
        #expect(
            beyond.out.contains("frame 1: its 100x100 at (50,50) reaches beyond"), "\(beyond.out)")
        let trailing = cropkit("leaks", TestData.path("animated/image-gif/samples/moon_impact.gif"))
        #expect(trailing.status == 1)
        #expect(trailing.out.contains("47 bytes after the end of the image"), "\(trailing.out)")
        let webp = cropkit(
            "leaks", TestData.path("corrupt/animated/40_webp_anmf_partly_outside_canvas.webp"))
        #expect(webp.status == 1, "\(webp.out) \(webp.err)")
        // fcTL/fdAT in a PNG that is no APNG: a still that hides a frame.
        let still = cropkit("leaks", TestData.path("animated/pillow/apng/chunk_no_actl.png"))
        #expect(still.status == 1)
        #expect(still.out.contains("not an APNG"), "\(still.out)")
        let clean = cropkit("leaks", TestData.path("animated/pillow/iss634.webp"))
        #expect(clean.status == 0, "\(clean.out)")
    }

    /// `batch` crops animations like stills: into each animation format,
    /// by a view selection too, one frame with "frame", and a still format
    /// without it fails its line naming "frame".
    @Test func batchCropsAnimations() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestData.path("animated/pillow/iss634.gif")
        let pixels = #""pixels":{"x":11,"y":10,"width":100,"height":90}"#
        let manifest = [
            #"{"input":"\#(input)","output":"a.gif",\#(pixels)}"#,
            #"{"input":"\#(input)","output":"b.webp",\#(pixels)}"#,
            #"{"input":"\#(input)","output":"c.png",\#(pixels),"frame":3}"#,
            #"{"input":"\#(input)","output":"d.jpg",\#(pixels)}"#,
            #"{"input":"\#(input)","output":"e.apng","viewport":{"width":490,"height":490},"selection":{"x":22,"y":20,"width":200,"height":180}}"#,
        ].joined(separator: "\n")
        let path = folder.appendingPathComponent("m.jsonl")
        try manifest.write(to: path, atomically: true, encoding: .utf8)
        let run = cropkit("batch", path.path)
        #expect(run.status == 1, "\(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        for (index, line) in lines.enumerated() {
            let report = try JSONValue(parsing: line)
            guard case .string(let status)? = report["status"] else {
                Issue.record("\(line)")
                continue
            }
            #expect(status == (index == 3 ? "failed" : "written"), "\(line)")
            if index == 3 { #expect(line.contains("add \\\"frame\\\""), "\(line)") }
            if index == 0 || index == 1 || index == 4 {
                #expect(line.contains("\"frames\":42"), "\(line)")
                #expect(
                    line.contains(#""pixels":{"x":11,"y":10,"width":100,"height":90}"#),
                    "\(line)")
            }
        }
        for name in ["a.gif", "b.webp", "e.apng"] {
            let written = try #require(
                try AnimatedImage.open(path: folder.appendingPathComponent(name).path))
            #expect(written.animation.frames.count == 42)
            #expect(written.size == PixelSize(width: 100, height: 90))
        }
        let still = try ImageSource.open(path: folder.appendingPathComponent("c.png").path)
        #expect(still.storedSize == PixelSize(width: 100, height: 90))
        #expect(try AnimatedImage.open(path: folder.appendingPathComponent("c.png").path) == nil)

        // --merge checks each output's header as an animation where it is
        // one (it refused every animated output as "not an image"), and
        // still names one that changed.
        let report = folder.appendingPathComponent("r.jsonl")
        try run.out.write(to: report, atomically: true, encoding: .utf8)
        let merged = cropkit("batch", path.path, "--merge", report.path)
        #expect(merged.status == 1, "\(merged.err)")
        #expect(merged.err.contains("4 done"), "\(merged.err)")
        #expect(!merged.err.contains("does not read as an image"), "\(merged.err)")
        // Another animation in its place, of the same length in bytes.
        let gif = folder.appendingPathComponent("a.gif")
        let bytes = try Data(contentsOf: gif).count
        var other = try Data(contentsOf: folder.appendingPathComponent("b.webp"))
        other += Data(count: max(0, bytes - other.count))
        try other.prefix(bytes).write(to: gif)
        let changed = cropkit("batch", path.path, "--merge", report.path)
        #expect(changed.err.contains("3 done"), "\(changed.err)")
        #expect(changed.err.contains("line 1 failed"), "\(changed.err)")
        #expect(changed.err.contains("a.gif does not read as an image"), "\(changed.err)")
    }

    /// A turned, resized or circled crop of an animation is, frame by
    /// frame, the still crop of that displayed frame with the same options
    /// (--frame N): the same positions, filter and fill; the timeline kept.
    @Test(arguments: [
        ["--pixels", "10,10,60,40", "--width", "47"],
        ["--pixels", "10,10,60,40", "--angle", "7"],
        ["--pixels", "9,10,41,39", "--circle"],
        ["--angle", "3", "--inside", "--aspect", "1:1"],
    ])
    func resampledAnimationsAreTheirFramesStills(options: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Four frames over a hidden default image, sub-frames disposed to
        // background and to previous.
        let path = TestData.path(
            "animated/generated/apng_coords_rgba8_97x61_4f_loop1_hidden_default.png")
        for ext in ["png", "webp"] {
            let output = folder.appendingPathComponent("all.\(ext)").path
            let run = cropkit(["crop", path] + options + ["-o", output, "--json"])
            #expect(run.status == 0, "\(options) \(ext): \(run.err)")
            expectNoLeaks(inImagesWrittenBy: ["crop", path, "-o", output], run)
            let written = try #require(try AnimatedImage.open(path: output))
            #expect(written.animation.frames.count == 4)
            #expect(written.animation.totalMilliseconds == 400)
            #expect(written.animation.plays == 1)
            var frames = written.displayedFrames.makeIterator()
            for index in 0..<4 {
                let frame = try #require(try frames.nextFrame())
                let still = folder.appendingPathComponent("f\(index).png").path
                let one = cropkit(
                    ["crop", path, "--frame", "\(index)"] + options + ["-o", still, "--force"])
                #expect(one.status == 0, "\(one.err)")
                let rgba = try ImageSource.open(path: still).decode().image
                #expect(rgba.colorType == .rgba && rgba.bitDepth == 8)
                #expect(frame.width == rgba.width && frame.height == rgba.height)
                var differing = 0
                for i in 0..<min(frame.samples.count, rgba.samples.count) / 4 {
                    let a = Array(frame.samples[4 * i..<4 * i + 4])
                    let b = Array(rgba.samples[4 * i..<4 * i + 4])
                    if a != b && !(a[3] == 0 && b[3] == 0) { differing += 1 }
                }
                #expect(differing == 0, "\(options) \(ext) frame \(index): \(differing) pixels")
            }
        }
    }
}
