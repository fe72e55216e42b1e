import CropImaging
import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

/// The habits a user of vips, exiftool and swift-argument-parser expects:
/// a version, short flags, `--`, suggestions for typos, one exit code per
/// kind of mistake, an output named as the format it holds.
@Suite(.announcesSkips) struct CommandLineHabitsTests {
    /// A 40x30 fixture in a fresh folder.
    static func fixtureFolder() throws -> (URL, String) {
        let folder = try temporaryFolder()
        let input = folder.appendingPathComponent("in.png").path
        #expect(cropkit("fixture", "40x30", "-o", input).status == 0)
        return (folder, input)
    }

    @Test func versionIsAFlagAndASubcommand() {
        for arguments in [["--version"], ["version"]] {
            let run = cropkit(arguments)
            #expect(run.status == 0)
            #expect(run.out == "cropkit \(CropKitTool.version)\n")
        }
    }

    @Test func typosGetTheClosestName() {
        let option = cropkit("crop", "in.png", "-o", "c.png", "--selction", "1,2,3,4")
        #expect(option.status == 64)
        #expect(option.err.contains("unknown option '--selction'; did you mean '--selection'?"))
        let subcommand = cropkit("crp")
        #expect(subcommand.status == 64)
        #expect(subcommand.err.contains("unknown subcommand 'crp'; did you mean 'crop'?"))
        // --help is one of every subcommand's options.
        for command in ["crop", "map", "batch", "grade"] {
            let help = cropkit(command, "--helpp")
            #expect(help.status == 64)
            #expect(
                help.err.contains("unknown option '--helpp'; did you mean '--help'?"), "\(command)")
        }
        // Nothing near: no guess.
        let far = cropkit("map", "--zzzzzzzz", "1")
        #expect(far.err.contains("unknown option '--zzzzzzzz'\n"))
    }

    @Test func anUnknownShortFlagIsAnUnknownOption() {
        let run = cropkit("crop", "in.png", "-o", "c.png", "-x")
        #expect(run.status == 64)
        #expect(run.err.hasPrefix("error: unknown option '-x'"))
    }

    @Test func numbersGivenApartAreToldTheirShape() {
        let run = cropkit(
            "map", "--source", "100x100", "--viewport", "100x100", "--selection", "10", "10",
            "100", "100")
        #expect(run.status == 64)
        #expect(run.err.contains("--selection takes X,Y,W,H as one word"))
        #expect(run.err.contains("--selection 10,10,100,100"))
        let size = cropkit("map", "--source", "400", "300", "--viewport", "1x1")
        #expect(size.err.contains("--source 400x300"))
    }

    @Test func shortFlagsQuietAndTheEndOfOptions() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("c.png").path
        #expect(cropkit("crop", input, "-o", output, "--pixels", "0,0,4,4").status == 0)
        // -f replaces; without it the existing output is a usage error.
        #expect(cropkit("crop", input, "-o", output, "--pixels", "0,0,5,5").status == 64)
        let forced = cropkit("crop", input, "-o", output, "--pixels", "0,0,5,5", "-f", "-j")
        #expect(forced.status == 0)
        #expect(forced.out.hasPrefix("{\"schemaVersion\":1,\"input\":"))
        #expect(try PNGDecoder.decode(path: output).width == 5)
        // -q: nothing on standard output.
        let quiet = cropkit("crop", input, "-o", output, "--pixels", "0,0,6,6", "-f", "-q")
        #expect(quiet.status == 0)
        #expect(quiet.out.isEmpty)
        // After --, a name starting with a dash is an input.
        let dashed = folder.appendingPathComponent("-odd.png").path
        try FileManager.default.copyItem(atPath: input, toPath: dashed)
        let relative = cropkit(
            "crop", "-o", output, "-f", "--pixels", "0,0,3,3", "--", dashed)
        #expect(relative.status == 0, "\(relative.err)")
    }

    @Test func everyMalformedRectIsAUsageError() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("c.png").path
        for rect in ["-1,0,10,10", "0,-1,10,10", "0,0,-10,10", "0,0,10,0", "0.5,0,10,10"] {
            let run = cropkit("crop", input, "-o", output, "--pixels", rect)
            #expect(run.status == 64, "\(rect): \(run.err)")
            #expect(run.err.contains("--pixels must be whole numbers"), "\(rect)")
        }
    }

    @Test func clampKeepsThePartInside() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("c.png").path
        let refused = cropkit("crop", input, "-o", output, "--pixels", "30,20,20,20")
        #expect(refused.status == 1)
        #expect(refused.err.contains("x + width up to 40, y + height up to 30"))
        #expect(refused.err.contains("--clamp keeps the part inside"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let clamped = cropkit(
            "crop", input, "-o", output, "--pixels", "-5,20,50,20", "--clamp", "--json")
        #expect(clamped.status == 0, "\(clamped.err)")
        #expect(clamped.err.contains("wrote pixels 0,20,40,10, the part of -5,20,50,20"))
        let image = try PNGDecoder.decode(path: output)
        #expect(image.width == 40 && image.height == 10)
        let outside = cropkit(
            "crop", input, "-o", output, "-f", "--pixels", "40,0,5,5", "--clamp")
        #expect(outside.status == 1)
        #expect(outside.err.contains("wholly outside the 40x30 image"))
    }

    @Test func theOutputIsAFileNamedForItsFormat() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tiff = folder.appendingPathComponent("c.tif").path
        let wrongFormat = cropkit("crop", input, "-o", tiff, "--pixels", "0,0,4,4")
        #expect(wrongFormat.status == 64)
        #expect(
            wrongFormat.err.contains(
                "writes PNG, JPEG, HEIC, WebP or AVIF (.png, .jpg, .jpeg, .heic, .heif, .webp, .avif) only; name it e.g. c.png"
            ))
        #expect(!FileManager.default.fileExists(atPath: tiff))
        // The extension picks the format; --format must agree with it.
        let jpeg = folder.appendingPathComponent("c.jpg").path
        #expect(cropkit("crop", input, "-o", jpeg, "--pixels", "0,0,4,4").status == 0)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: jpeg)).prefix(2)) == [0xFF, 0xD8])
        let mismatch = cropkit(
            "crop", input, "-o", jpeg, "-f", "--format", "png", "--pixels", "0,0,4,4")
        #expect(mismatch.status == 64)
        #expect(mismatch.err.contains("--format png does not match -o"))
        for target in [folder.path, folder.path + "/", "."] {
            let run = cropkit("crop", input, "-o", target, "--pixels", "0,0,4,4")
            #expect(run.status == 64)
            #expect(run.err.contains("is a folder; name a file"), "\(target): \(run.err)")
        }
        let svg = cropkit(
            "explain", "--source", "4x3", "--viewport", "4x3", "--selection", "0,0,1,1", "-o",
            folder.appendingPathComponent("e.png").path)
        #expect(svg.status == 64)
        #expect(svg.err.contains("writes SVG (.svg) only"))
    }

    @Test func helpListsTheModesAndTheRealDefaults() throws {
        for command in CropKitTool.subcommands
        where command.options.contains(where: { $0.name == "mode" }) {
            let help = cropkit(command.name, "--help").out
            #expect(help.contains("Modes (--mode)"), "\(command.name)")
            for mode in ContentModeNames.all {
                #expect(help.contains(" \(mode)"), "\(command.name) --help omits \(mode)")
            }
        }
        let crop = cropkit("crop", "--help").out
        #expect(crop.contains("EXIF orientation 1-8 (default: the file's own)"))
        let replay = cropkit("replay", "--help").out
        let usage = try #require(replay.split(separator: "\n").first)
        for option in ["--source-file", "--export", "--report", "--max-line-bytes"] {
            #expect(usage.contains(option), "replay's usage line omits \(option)")
        }
        let fixture = cropkit("fixture", "400", "-o", "f.png")
        #expect(fixture.status == 64)
        #expect(fixture.err.contains("give the size as WxH, e.g. 400x300, not '400'"))
        // The help texts cite the contract where a clone has it.
        for command in CropKitTool.subcommands {
            #expect(!command.help.contains("DESIGN.md"), "\(command.name) cites DESIGN.md")
        }
    }

    /// Every output format the registry holds is named wherever formats
    /// are listed: crop's summary, usage and -o, batch's extensions and
    /// "format" values, and the README's crop and batch rows. A README that
    /// said a batch line must end in `.png` outlived the JPEG and HEIC
    /// outputs; crop's help named PNG, JPEG and HEIC after WebP and AVIF
    /// came.
    @Test func everyOutputFormatIsNamedWhereFormatsAreListed() throws {
        let crop = cropkit("crop", "--help").out
        let batch = cropkit("batch", "--help").out
        let top = cropkit("--help").out
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("README.md"),
            encoding: .utf8)
        let rows = readme.split(separator: "\n").filter {
            $0.hasPrefix("| `cropkit crop ") || $0.hasPrefix("| `cropkit batch ")
        }
        #expect(rows.count == 2)
        let cropRow = rows.first { $0.hasPrefix("| `cropkit crop ") } ?? ""
        let usage = crop.split(separator: "\n").first ?? ""
        let listing = ImageFormat.listing(OutputFormat.displayNames)
        #expect(top.contains("as \(listing)"), "the top-level help's crop line")
        #expect(crop.contains("INPUT (\(listing))"), "crop --help's first paragraph")
        for (name, extensions) in OutputFormat.choices {
            let shown = OutputFormat.displayName(of: name)
            #expect(usage.contains("OUT.\(extensions[0])"), "crop's usage omits .\(extensions[0])")
            #expect(top.contains(shown), "the top-level help omits \(shown)")
            #expect(cropRow.contains(shown), "the README's crop row omits \(shown)")
            #expect(batch.contains("\"\(name)\""), "batch --help omits the format \(name)")
            for ext in extensions {
                #expect(batch.contains(".\(ext)"), "batch --help omits .\(ext)")
            }
        }
        #expect(!readme.contains("does not end in `.png`"))
    }

    @Test func explainTakesAspectAndSourceFile() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapped = cropkit(
            "explain", "--source", "40x30", "--viewport", "40x30", "--selection", "0,0,20,10",
            "--aspect", "1:1")
        #expect(snapped.status == 0, "\(snapped.err)")
        let map = cropkit(
            "map", "--source", "40x30", "--viewport", "40x30", "--selection", "0,0,20,10",
            "--aspect", "1:1", "--json")
        // The diagram draws the snapped rect, as map gives it.
        #expect(map.out.contains("\"expected\":{\"x\":0,\"y\":0,\"width\":20,\"height\":20}"))
        #expect(
            snapped.out.contains("data-x=\"0\" data-y=\"0\" data-width=\"20\" data-height=\"20\""))
        #expect(snapped.out.contains("aspect 1:1"))
        let fromFile = cropkit(
            "explain", "--source-file", input, "--viewport", "40x30", "--selection", "0,0,20,10")
        #expect(fromFile.status == 0, "\(fromFile.err)")
        #expect(fromFile.out.contains("data-source=\"40x30\""))
    }

    @Test func infoTakesSeveralFilesAndSpeaksCropsJSON() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.png").path
        let text = cropkit("info", input, input)
        #expect(text.status == 0)
        #expect(text.out.components(separatedBy: "== \(input)\n").count == 3)
        let json = cropkit("info", "--json", input, missing)
        #expect(json.status == 2)
        let lines = json.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let first = try #require(
            JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["file"] as? String == input)
        #expect(first["colorSpace"] as? String == "rgba")
        #expect(first["interlaced"] as? Bool == false)
        #expect(first["droppedChunks"] is [Any])
        #expect(first["chunks"] is [Any])
        #expect(first.keys.allSatisfy { !$0.contains(" ") && !$0.contains("_") })
        let second = try #require(
            JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect((second["error"] as? String)?.contains("missing.png") == true)
    }

    @Test(arguments: ["replay", "batch"])
    func aBinaryFileIsOneError(command: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("photo.jsonl")
        // A JPEG's first bytes, then lines that would each fail.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8)
        for _ in 0..<2000 { bytes += Array("garbage\n".utf8) }
        try Data(bytes).write(to: file)
        let run = cropkit(command, file.path)
        #expect(run.status == 2)
        #expect(run.err.contains("not JSON Lines: binary data at byte 0 (0xFF"))
        #expect(run.out.isEmpty)
        #expect(run.err.components(separatedBy: "\n").count < 5)
    }

    @Test func batchMakesFoldersCleansPathsAndNamesFailures() throws {
        let (folder, input) = try Self.fixtureFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("m.jsonl")
        let pixels = "\"pixels\":{\"x\":0,\"y\":0,\"width\":4,\"height\":4}"
        try """
        {"input":"in.png","output":"new/./deep/../x.png",\(pixels)}
        {"input":"in.png","output":"y.tif",\(pixels)}
        {"input":"in.png","output":"z.png",\(pixels),}

        """.write(to: manifest, atomically: true, encoding: .utf8)
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = cropkit("batch", manifest.path, "--report", report)
        #expect(run.status == 1)
        let written = folder.appendingPathComponent("new/x.png").path
        #expect(FileManager.default.fileExists(atPath: written))
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("new/deep").path))
        let lines = try String(contentsOfFile: report, encoding: .utf8)
        #expect(lines.contains("\"output\":\"\(written)\""))
        #expect(run.err.contains("line 2: failed: \"output\""))
        #expect(
            run.err.contains(
                "line 3: failed: not valid JSON: expected a member name in quotes at byte"))
        // The same words replay gives for the same mistake.
        let record = cropkit(
            "replay", "-",
            input: "{\"source\":{\"width\":1,\"height\":1},}\n")
        #expect(record.out.contains("not valid JSON: expected a member name in quotes at byte"))
        _ = input
    }

    @Test func completionsComeFromTheOptionTables() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bash = cropkit("completions", "bash")
        #expect(bash.status == 0)
        let script = folder.appendingPathComponent("cropkit.bash")
        try bash.out.write(to: script, atomically: true, encoding: .utf8)
        func complete(_ words: String) throws -> String {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            let count = words.split(separator: " ", omittingEmptySubsequences: false).count
            shell.arguments = [
                "-c",
                "source '\(script.path)'; COMP_WORDS=(\(words)); COMP_CWORD=\(count - 1); _cropkit; echo \"${COMPREPLY[*]}\"",
            ]
            let pipe = Pipe()
            shell.standardOutput = pipe
            try shell.run()
            shell.waitUntilExit()
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(try complete("cropkit cr") == "crop\n")
        #expect(try complete("cropkit crop --sel") == "--selection\n")
        #expect(try complete("cropkit crop --mode aspectF") == "aspectFit aspectFill\n")
        let zsh = cropkit("completions", "zsh").out
        let fish = cropkit("completions", "fish").out
        #expect(zsh.hasPrefix("#compdef cropkit"))
        for command in CropKitTool.subcommands {
            for option in command.options {
                #expect(
                    bash.out.contains("--\(option.name)"), "bash: \(command.name) --\(option.name)")
                #expect(
                    zsh.contains("'--\(option.name)[") || zsh.contains(",--\(option.name)}'["),
                    "zsh: \(command.name) --\(option.name)")
                #expect(
                    fish.contains("__fish_seen_subcommand_from \(command.name)'")
                        && fish.contains("-l \(option.name)"), "fish: --\(option.name)")
            }
        }
        #expect(cropkit("completions", "tcsh").status == 64)
    }
}

/// The content modes' names, as `--mode` takes them.
enum ContentModeNames {
    static let all = [
        "aspectFit", "aspectFill", "scaleToFill", "center", "top", "bottom", "left", "right",
        "topLeft", "topRight", "bottomLeft", "bottomRight",
    ]
}

extension CommandLineHabitsTests {
    /// JPEG outputs from the command line: the extension or --format picks
    /// the format, `leaks` finds what a camera original shows and a crop
    /// does not, batch lines write JPEG by extension or "format".
    @Test func jpegOutputsLeaksAndBatch() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("photo.jpg")
        let tiny = try JPEGEncoder.encoded(
            RasterImage(
                width: 8, height: 8, colorType: .gray, bitDepth: 8,
                samples: [UInt8](repeating: 90, count: 64)),
            horizontal: [1], vertical: [1])
        let pixels = RasterImage(
            width: 64, height: 48, colorType: .rgb, bitDepth: 8,
            samples: (0..<(64 * 48 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7 % 251) })
        // A photo with a second image after its end: the aCropalypse kind.
        try Data(
            try JPEGEncoder.encoded(pixels, horizontal: [2, 1, 1], vertical: [2, 1, 1])
                + tiny
        ).write(to: source)
        let original = cropkit("leaks", source.path)
        #expect(original.status == 1)
        #expect(original.out.contains("after EOI: \(tiny.count) bytes after the end of the image"))
        let crop = folder.appendingPathComponent("crop.jpg").path
        let run = cropkit("crop", source.path, "-o", crop, "--pixels", "16,16,32,16", "--json")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("\"format\":\"jpeg\""))
        #expect(run.out.contains("\"method\":\"lossless\""))
        #expect(cropkit("leaks", crop).out == "\(crop): clean\n")
        let lossless = cropkit(
            "crop", source.path, "-o", folder.appendingPathComponent("x.jpg").path, "--pixels",
            "3,16,32,16", "--lossless")
        #expect(lossless.status == 1)
        #expect(lossless.err.contains("nearest lossless rects are 0,16,48,16 (grown outward)"))
        let pngOnly = cropkit(
            "crop", source.path, "-o", folder.appendingPathComponent("x.png").path, "--pixels",
            "0,0,8,8", "--quality", "80")
        #expect(pngOnly.status == 64)
        #expect(
            pngOnly.err.contains(
                "--quality is for JPEG, HEIC, WebP or AVIF output; this output is PNG"))
        let manifest = folder.appendingPathComponent("m.jsonl")
        try """
        {"input":"photo.jpg","output":"a.jpg","pixels":{"x":0,"y":0,"width":16,"height":16}}
        {"input":"photo.jpg","output":"b.out","format":"jpeg","pixels":{"x":0,"y":0,"width":16,"height":16}}
        {"input":"photo.jpg","output":"c.png","pixels":{"x":0,"y":0,"width":16,"height":16}}

        """.write(to: manifest, atomically: true, encoding: .utf8)
        let batch = cropkit("batch", manifest.path, "--quality", "70")
        #expect(batch.status == 1, "\(batch.out)\(batch.err)")
        #expect(batch.out.contains("\"line\":1,\"status\":\"written\""))
        #expect(batch.out.contains("\"line\":3,\"status\":\"written\""))
        // A "format" that the extension contradicts is the line's failure.
        #expect(batch.out.contains("\"line\":2,\"status\":\"failed\""))
        let written = try Data(contentsOf: folder.appendingPathComponent("a.jpg"))
        #expect(Array(written.prefix(2)) == [0xFF, 0xD8])
    }
}

extension CommandLineHabitsTests {
    /// `map --block-grid` says whether a rect is lossless; `crop --aspect
    /// --snap-to-blocks` keeps the ratio exact on the grid, or says it cannot.
    @Test func losslessRectsFromTheCommandLine() throws {
        let grid = cropkit(
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "75,75,151,150",
            "--block-grid", "16x16")
        #expect(
            grid.out.contains(
                "jpeg    not lossless on the 16x16 block grid; grown to it: 992,496,2032,2016"))
        let json = cropkit(
            "map", "--source", "4000x3000", "--viewport", "400x300", "--selection", "80,40,160,120",
            "--block-grid", "16x16", "--json")
        #expect(json.out.contains("\"lossless\":true"))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("photo.jpg")
        try Data(try DemoPhoto.jpeg(width: 640, height: 480)).write(to: source)
        let output = folder.appendingPathComponent("wide.jpg").path
        let wide = cropkit(
            "crop", source.path, "-o", output, "--viewport", "640x480", "--selection",
            "101,53,300,200",
            "--aspect", "16:9", "--snap-to-blocks", "--json")
        #expect(wide.status == 0, "\(wide.err)")
        #expect(wide.out.contains("\"width\":512,\"height\":288"), "\(wide.out)")
        #expect(wide.out.contains("\"method\":\"lossless\""))
        let tooBig = cropkit(
            "crop", source.path, "-o", output, "-f", "--viewport", "640x480", "--selection",
            "0,0,600,460", "--aspect", "16:9", "--snap-to-blocks")
        #expect(tooBig.status == 1)
        #expect(
            tooBig.err.contains(
                "cannot grow to the source's 16x16 block grid and keep the ratio 16:9"))
    }
}

extension CommandLineHabitsTests {
    /// `verify --format jpeg` and `replay --export --format jpeg`: a crop on
    /// the block grid is lossless bit for bit, one off it is re-encoded and
    /// close, and neither leaks.
    @Test func jpegExportsAreVerified() throws {
        let verify = cropkit(
            "verify", "--source", "640x480", "--viewport", "320x240", "--selection", "8,8,64,40",
            "--selection", "9,8,64,40", "--format", "jpeg")
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        #expect(verify.out.contains("ok   lossless: every block copied"))
        #expect(verify.out.contains("ok   psnr: reencoded:"))
        #expect(
            verify.out.components(separatedBy: "ok   leaks: nothing of the uncropped photo").count
                == 3)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("r.jsonl")
        try """
        {"source":{"width":640,"height":480},"viewport":{"width":320,"height":240},"selection":{"x":8,"y":8,"width":64,"height":40}}

        """.write(to: records, atomically: true, encoding: .utf8)
        let export = folder.appendingPathComponent("ex").path
        let replay = cropkit("replay", records.path, "--export", export, "--format", "jpeg")
        #expect(replay.status == 0, "\(replay.err)")
        #expect(replay.out.contains("\"name\":\"lossless\",\"passed\":true"))
        #expect(FileManager.default.fileExists(atPath: export + "/line-1.jpg"))
        #expect(cropkit("replay", records.path, "--format", "jpeg").status == 64)
    }
}

extension CommandLineHabitsTests {
    /// `--gain-map crop` (the old name of `--companions keep`, the default)
    /// keeps an iPhone photo's HDR gain map, cut to the crop; each flag
    /// takes its own two words.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func gainMapsFromTheCommandLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = TestData.path("camera/iphone14promax_p3_hdrgainmap.jpg")
        let output = folder.appendingPathComponent("hdr.jpg").path
        let run = cropkit(
            "crop", photo, "-o", output, "--pixels", "16,16,32,48", "--gain-map", "crop")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("rewritten APP2 MPF: the HDR gain map cut to the crop, "))
        #expect(cropkit("leaks", output).status == 0)
        // A PNG has no place for a gain map: it is dropped, and says so.
        let png = cropkit(
            "crop", photo, "-o", folder.appendingPathComponent("x.png").path, "--pixels", "0,0,8,8",
            "--companions", "keep")
        #expect(png.status == 0, "\(png.err)")
        #expect(png.out.contains("dropped APP2 MPF"), "\(png.out)")
        let unknown = cropkit(
            "crop", photo, "-o", output, "-f", "--pixels", "0,0,8,8", "--gain-map", "keep")
        #expect(unknown.status == 64)
        #expect(unknown.err.contains("unknown --gain-map 'keep'; use crop or drop"))
        let unknownChoice = cropkit(
            "crop", photo, "-o", output, "-f", "--pixels", "0,0,8,8", "--companions", "crop")
        #expect(unknownChoice.status == 64)
        #expect(unknownChoice.err.contains("unknown --companions 'crop'; use keep or drop"))
    }
}
