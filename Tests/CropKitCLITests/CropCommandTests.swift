import CropGeometry
import CropImaging
import CropKitCLI
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

@Suite(.announcesSkips) struct CropCommandTests {
    /// A folder with a 400x300 corners fixture and a 40x30 coordinates fixture.
    static func workspace() throws -> URL {
        let folder = try temporaryFolder()
        #expect(
            cropkit("fixture", "400x300", "-o", folder.appendingPathComponent("corners.png").path)
                .status == 0)
        #expect(
            cropkit(
                "fixture", "40x30", "--kind", "coordinates", "-o",
                folder.appendingPathComponent("coords.png").path
            )
            .status == 0)
        return folder
    }

    /// A quarter turn of the coordinates fixture: output pixel (i, j) holds
    /// the image pixel the contract's position gives (x = 5 + j, y = 29 − i
    /// for the middle 30×30), and the sizes and refusals read as the help says.
    @Test func turnsAndResizesFromTheCommandLine() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("coords.png").path
        let output = folder.appendingPathComponent("turned.png").path
        let run = cropkit(
            "crop", input, "-o", output, "--viewport", "400x300", "--selection", "50,0,300,300",
            "--angle", "90", "--filter", "nearest", "--json")
        #expect(run.status == 0, "\(run.err)")
        let report = try JSONValue(parsing: run.out)
        #expect(report["mapping"]?["record"]?["result"]?["x"] == .number(5))
        let image = try PNGDecoder.decode(path: output)
        #expect(image.width == 30 && image.height == 30)
        for (i, j) in [(0, 0), (29, 0), (0, 29), (13, 7)] {
            #expect(image.sample(x: i, y: j, channel: 0) == 5 + j)
            #expect(image.sample(x: i, y: j, channel: 1) == 29 - i)
        }
        let resized = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,40,30", "--width", "20", "--force")
        #expect(resized.status == 0, "\(resized.err)")
        #expect(try PNGDecoder.decode(path: output).width == 20)
        for (arguments, message) in [
            (["--width", "20", "--fit", "9x9"], "--fit and --width do not go together"),
            (["--angle", "nan"], "--angle must be a finite number"),
            (["--size", "0x5"], "--size must be WxH"),
            (["--fill", "mauve"], "--fill must be transparent"),
            (
                ["--angle", "3", "--lossless", "--format", "jpeg"],
                "--lossless is for an unturned crop"
            ),
        ] {
            let out =
                arguments.contains("jpeg")
                ? output.replacingOccurrences(of: ".png", with: ".jpg") : output
            let refused = cropkit(
                ["crop", input, "-o", out, "--pixels", "0,0,10,10", "--force"] + arguments)
            #expect(refused.status == 64 && refused.err.contains(message), "\(refused.err)")
        }
        let heic = cropkit(
            "crop", input, "-o", folder.appendingPathComponent("x.heic").path, "--angle", "3",
            "--inside")
        #expect(heic.status == 64 && heic.err.contains("PNG, JPEG, WebP or AVIF, not HEIC"))
    }

    /// Several outputs of one photo: shared options before the first -o,
    /// each output's own after it; every output as the same command with
    /// one -o would write it.
    @Test func variantsWriteEachOutputAsASingleCropWould() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("corners.png").path
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let run = cropkit(
            "crop", input, "--width", "120", "-o", path("square.png"), "--inside", "--aspect",
            "1:1", "-o", path("wide.png"), "--inside", "--aspect", "16:9", "--angle", "2",
            "-o", path("exact.png"), "--pixels", "10,10,50,40", "--width", "50")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.split(separator: "\n").count == 3)
        let square = try PNGDecoder.decode(path: path("square.png"))
        #expect(square.width == 120 && square.height == 120)
        let wide = try PNGDecoder.decode(path: path("wide.png"))
        #expect(wide.width == 120 && wide.height == 68)
        // --width 50 of a 50-wide rect: the lossless crop.
        let exact = try PNGDecoder.decode(path: path("exact.png"))
        let fixture = Fixture.corners(width: 400, height: 300)
        #expect(
            exact.samples
                == fixture.cropped(to: PixelRect(x: 10, y: 10, width: 50, height: 40)).samples)
        for (name, arguments) in [
            ("square.png", ["--inside", "--aspect", "1:1"]),
            ("wide.png", ["--inside", "--aspect", "16:9", "--angle", "2"]),
        ] {
            let single = path("single-" + name)
            let one = cropkit(["crop", input, "--width", "120", "-o", single] + arguments)
            #expect(one.status == 0, "\(one.err)")
            #expect(try PNGDecoder.decode(path: single) == PNGDecoder.decode(path: path(name)))
        }
        let twice = cropkit(
            "crop", input, "-o", path("a.png"), "--width", "3", "--width", "4", "-o",
            path("b.png"), "--inside")
        #expect(twice.status == 64 && twice.err.contains("given more than once for one output"))
        let same = cropkit(
            "crop", input, "--inside", "--force", "-o", path("a.png"), "-o", path("a.png"))
        #expect(same.status == 64 && same.err.contains("given for two variants"))
    }

    /// `verify --angle --size`: turned and resized crops of the scaled
    /// coordinates fixture pass in every orientation, with and without fill.
    @Test(arguments: [1, 2, 6, 7])
    func verifyChecksTurnedCrops(orientation: Int) throws {
        let run = cropkit(
            "verify", "--source", "160x120", "--viewport", "320x240", "--selection",
            "0,0,320,240", "--selection", "100,50,90,60", "--angle", "-12.5", "--size", "70x50",
            "--orientation", String(orientation), "--json")
        #expect(run.status == 0, "\(run.out)\(run.err)")
        let lines = run.out.split(separator: "\n").compactMap {
            try? JSONValue(parsing: String($0))
        }
        #expect(lines.count == 2)
        for line in lines {
            guard case .array(let checks)? = line["checks"] else {
                Issue.record("no checks in \(line)")
                continue
            }
            #expect(checks.count == 3 && checks.allSatisfy { $0["passed"] == .bool(true) })
        }
        let quarter = cropkit(
            "verify", "--source", "40x30", "--viewport", "400x300", "--selection", "50,0,300,300",
            "--angle", "90", "--orientation", String(orientation))
        #expect(quarter.status == 0 && quarter.out.contains("largest error 0.0000 px"))
    }

    @Test func cropsAViewSelectionExactly() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("coords.png").path
        let output = folder.appendingPathComponent("out.png").path
        // 40x30 in a 300x300 view: 7.5 pt per pixel, image at y = 37.5.
        let run = cropkit(
            "crop", input, "-o", output, "--viewport", "300x300", "--selection", "75,75,150,150",
            "--json")
        #expect(run.status == 0, "\(run.err)")
        let report = try JSONValue(parsing: run.out)
        #expect(report["mapping"]?["result"]?["x"] == .number(10))
        #expect(
            report["written"]?["width"] == .number(20)
                && report["written"]?["height"] == .number(20))
        #expect(report["written"]?["png"]?["bitDepth"] == .number(16))
        let image = try PNGDecoder.decode(path: output)
        #expect(
            image
                == Fixture.coordinates(width: 40, height: 30).cropped(
                    to: PixelRect(x: 10, y: 5, width: 20, height: 20)))
    }

    @Test func levelIsAutomaticUnlessGiven() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("corners.png").path
        let output = folder.appendingPathComponent("out.png").path
        let auto = cropkit("crop", input, "-o", output, "--pixels", "0,0,400,300", "--json")
        #expect(auto.status == 0, "\(auto.err)")
        let report = try JSONValue(parsing: auto.out)
        #expect(report["written"]?["png"]?["level"] == .string("auto"))
        if Compressor.isLibdeflateAvailable {
            // The fixture is flat colour: level 6 for every band.
            guard case .object(let levels) = report["written"]?["png"]?["bandLevels"] else {
                Issue.record("no bandLevels in \(auto.out)")
                return
            }
            #expect(levels.map(\.key) == ["6"])
        }
        let fixed = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,400,300", "--json", "--force",
            "--level", "3")
        #expect(fixed.status == 0, "\(fixed.err)")
        #expect(try JSONValue(parsing: fixed.out)["written"]?["png"]?["level"] == .number(3))
        let bad = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,4,3", "--force", "--level", "0")
        #expect(bad.status == 64)
        #expect(
            bad.err.contains(
                "--level must be auto, best, 1-9 for zlib or 1-12 for libdeflate, not '0'"))
        let best = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,400,300", "--json", "--force",
            "--level", "best")
        #expect(best.status == 0, "\(best.err)")
        #expect(
            try JSONValue(parsing: best.out)["written"]?["png"]?["level"]
                == .number(Compressor.isLibdeflateAvailable ? 12 : 9))
    }

    @Test func cropsPixelsAndRefusesToOverwrite() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("corners.png").path
        let output = folder.appendingPathComponent("out.png").path
        #expect(cropkit("crop", input, "-o", output, "--pixels", "350,250,50,50").status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: output))
        let again = cropkit("crop", input, "-o", output, "--pixels", "0,0,10,10")
        #expect(again.status == 64)
        #expect(again.err.contains("already exists; pass --force"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == first)
        #expect(
            cropkit("crop", input, "-o", output, "--pixels", "0,0,10,10", "--force").status == 0)
        #expect(try PNGDecoder.decode(path: output).width == 10)
        let same = cropkit("crop", input, "-o", input, "--pixels", "0,0,10,10", "--force")
        #expect(same.status == 64)
        #expect(same.err.contains("is the input file"))
        #expect(
            cropkit("crop", input, "-o", output, "--pixels", "390,0,20,10", "--force").status == 1)
    }

    @Test func badInputExitsTwoAndWritesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.png").path
        let garbage = folder.appendingPathComponent("garbage.png")
        try Data([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0]).write(to: garbage)
        for input in [garbage.path, folder.appendingPathComponent("missing.png").path, folder.path]
        {
            let run = cropkit("crop", input, "-o", output, "--pixels", "0,0,1,1")
            #expect(run.status == 2, "\(input): \(run.err)")
            #expect(run.err.hasPrefix("error: "))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["garbage.png"])
    }

    /// PngSuite's broken files: exit 2 and no output, even for a one-pixel
    /// crop that would stop decoding before the broken part.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func brokenPngSuiteFilesExitTwoWithNoOutput() throws {
        let root = try #require(TestData.root)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent("pngsuite").path
        )
        .filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }
        #expect(names.count >= 14)
        for name in names {
            let output = folder.appendingPathComponent(name).path
            let run = cropkit(
                "crop", root.appendingPathComponent("pngsuite/" + name).path, "-o", output,
                "--pixels", "0,0,1,1")
            #expect(run.status == 2, "\(name): \(run.out)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(name)")
        }
    }

    @Test func fixtureKindsAndSizes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f.png").path
        #expect(cropkit("fixture", "3x2", "-o", path, "--kind", "coordinates").status == 0)
        #expect(try PNGDecoder.decode(path: path) == Fixture.coordinates(width: 3, height: 2))
        #expect(cropkit("fixture", "0x2", "-o", path, "--force").status == 64)
        #expect(cropkit("fixture", "3x2", "-o", path, "--kind", "stripes", "--force").status == 64)
    }

    @Test func verifyPassesForSeveralSelections() throws {
        let run = cropkit(
            "verify", "--source", "400x300", "--viewport", "300x300", "--selection",
            "75,75,150,150", "--selection",
            "0,0,300,300", "--selection", "0,0,30,300", "--orientation", "8")
        #expect(run.status == 0, "\(run.out)\(run.err)")
        #expect(run.out.contains("selection 75,75,150,150 -> pixels "))
        #expect(run.out.contains("no pixels (noImagePixels), nothing to export"))
        #expect(!run.out.contains("FAIL"))
        #expect(run.err == "2 passed, 0 failed\n")
        let json = cropkit(
            "verify", "--source", "400x300", "--viewport", "300x300", "--selection",
            "75,75,150,150", "--json")
        let line = try JSONValue(parsing: json.out)
        guard case .array(let checks)? = line["checks"] else {
            Issue.record("no checks in \(json.out)")
            return
        }
        #expect(checks.count == 4)
        #expect(checks.allSatisfy { $0["passed"] == .bool(true) })
    }
}

extension CropCommandTests {
    /// Zero-size, over-limit, truncated and bad-CRC PNGs: exit 2, a message,
    /// no output.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func generatedBadPNGsExitTwoWithNoOutput() throws {
        let root = try #require(TestData.root)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = root.appendingPathComponent("corrupt/generated")
        let names = try FileManager.default.contentsOfDirectory(atPath: generated.path)
            .filter {
                $0.hasPrefix("png_") && !$0.contains("empty_idat") && !$0.contains("ztxt_bomb")
            }
            .filter { !$0.contains("trunc172") && !$0.contains("trunc183") }
        #expect(names.count >= 15)
        var messages: [String] = []
        for name in names {
            let output = folder.appendingPathComponent(name).path
            let run = cropkit(
                "crop", generated.appendingPathComponent(name).path, "-o", output, "--pixels",
                "0,0,1,1")
            #expect(run.status == 2, "\(name): \(run.out)")
            #expect(run.err.hasPrefix("error: "), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(name)")
            messages.append(run.err)
        }
        #expect(messages.contains { $0.contains("--max-pixels") || $0.contains("--max-dimension") })
        #expect(messages.contains { $0.contains("bad CRC") })
        #expect(messages.contains { $0.contains("truncated") })
    }
}

extension CropCommandTests {
    /// The image data CRCs are checked while the crop decodes, not before:
    /// a broken last IDAT chunk, far below a 1x1 crop, must still refuse the
    /// file with the same message, and leave nothing behind.
    @Test func aBadCRCBelowTheCropStillRefusesTheFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var samples = [UInt8](repeating: 0, count: 700 * 600 * 3)  // noise: two 1 MB IDATs
        var state: UInt32 = 5
        for i in samples.indices {
            state = state &* 1_103_515_245 &+ 12345
            samples[i] = UInt8(truncatingIfNeeded: state >> 16)
        }
        let image = RasterImage(
            width: 700, height: 600, colorType: .rgb, bitDepth: 8, samples: samples)
        var bytes = try PNGEncoder(compressor: .zlib, level: 1).encode(image)
        // The last IDAT: flip a byte of its CRC.
        var offset = 8
        var lastIDAT = -1
        while offset + 8 <= bytes.count {
            let length =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16
                | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 4..<offset + 8].elementsEqual("IDAT".utf8) { lastIDAT = offset }
            offset += 12 + length
        }
        let length =
            Int(bytes[lastIDAT]) << 24 | Int(bytes[lastIDAT + 1]) << 16
            | Int(bytes[lastIDAT + 2]) << 8 | Int(bytes[lastIDAT + 3])
        #expect(lastIDAT > 8 + 25 + 12, "more than one IDAT")
        bytes[lastIDAT + 8 + length] ^= 0xFF
        let input = folder.appendingPathComponent("bad.png").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let output = folder.appendingPathComponent("out.png").path
        let run = cropkit("crop", input, "-o", output, "--pixels", "0,0,1,1")
        #expect(run.status == 2)
        #expect(
            run.err
                == "error: PNG chunk IDAT at byte \(lastIDAT) has a bad CRC (the file is corrupt)\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["bad.png"])
    }
}

extension CropCommandTests {
    @Test func limitFlagsRefuseLargeInputsAndSaySo() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("corners.png").path
        let output = folder.appendingPathComponent("out.png").path
        let pixels = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,10,10", "--max-pixels", "100000")
        #expect(pixels.status == 2)
        #expect(
            pixels.err.contains(
                "120000 pixels, over the limit of 100000 (raise it with --max-pixels)"),
            "\(pixels.err)")
        let side = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,10,10", "--max-dimension", "300")
        #expect(side.status == 2)
        #expect(side.err.contains("--max-dimension"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let file = cropkit(
            "crop", input, "-o", output, "--pixels", "0,0,10,10", "--max-file-bytes", "100")
        #expect(file.status == 2)
        #expect(
            file.err.contains(
                "over the 100 bytes limit for an input file (raise it with --max-file-bytes)"))
        #expect(
            cropkit("crop", input, "-o", output, "--pixels", "0,0,10,10", "--max-pixels", "0")
                .status == 64)
        #expect(
            cropkit("crop", input, "-o", output, "--pixels", "0,0,10,10", "--max-pixels", "120000")
                .status == 0)
    }
}

/// JPEG input through the command line: orientation, info, --source-file.
@Suite(.announcesSkips) struct JPEGCommandTests {
    static func photo(_ n: Int) -> String? {
        TestData.root?.appendingPathComponent("exif/generated/testorig_orientation\(n).jpg").path
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func cropMapsAgainstTheImageAsSeen() throws {
        let rotated = try #require(Self.photo(6))
        let upright = try #require(Self.photo(1))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let selection = ["--viewport", "300x300", "--selection", "60,80,120,90"]
        let a = folder.appendingPathComponent("a.png").path
        let b = folder.appendingPathComponent("b.png").path
        #expect(cropkit(["crop", rotated, "-o", a] + selection).status == 0)
        #expect(cropkit(["crop", upright, "-o", b] + selection).status == 0)
        let fromRotated = try PNGDecoder.decode(path: a)
        let fromUpright = try PNGDecoder.decode(path: b)
        #expect(fromRotated.width == 92 && fromRotated.height == 69)
        #expect(fromUpright.width == fromRotated.width && fromUpright.height == fromRotated.height)
        // Ignoring the orientation maps against the stored (sideways) size.
        let c = folder.appendingPathComponent("c.png").path
        let run = cropkit(["crop", rotated, "-o", c, "--ignore-orientation", "--json"] + selection)
        #expect(run.status == 0)
        #expect(try JSONValue(parsing: run.out)["mapping"]?["result"]?["x"] == .number(6))
        let seen = cropkit(["crop", rotated, "-o", c, "--force", "--json"] + selection)
        #expect(try JSONValue(parsing: seen.out)["mapping"]?["result"]?["x"] == .number(45))
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func infoAndSourceFileReadTheOrientation() throws {
        let rotated = try #require(Self.photo(6))
        let info = cropkit("info", rotated, "--json")
        #expect(info.status == 0)
        let json = try JSONValue(parsing: info.out)
        #expect(json["orientation"] == .number(6))
        #expect(
            json["stored"]?["width"] == .number(149) && json["oriented"]?["width"] == .number(227))
        let map = cropkit(
            "map", "--source-file", rotated, "--viewport", "300x300", "--selection", "60,80,120,90",
            "--json")
        #expect(try JSONValue(parsing: map.out)["expected"]?["stored"] != nil)
        let record = """
            {"source":{"width":149,"height":227},"viewport":{"width":300,"height":300},"selection":{"x":60,"y":80,"width":120,"height":90}}
            """
        let replay = cropkit(["replay", "-", "--source-file", rotated], input: record)
        #expect(try JSONValue(parsing: replay.out)["result"]?["stored"]?["x"] == .number(21))
        #expect(cropkit("info", "/nonexistent.jpg").status == 2)
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func corruptJPEGsExitTwoWithNoOutput() throws {
        let root = try #require(TestData.root)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = root.appendingPathComponent("corrupt/generated")
        let names = try FileManager.default.contentsOfDirectory(atPath: generated.path).filter {
            $0.hasPrefix("jpeg_")
        }
        #expect(names.count >= 15)
        for name in names {
            // The whole image: a crop that stops above a truncation would be
            // a correct decode of the rows that are there.
            let output = folder.appendingPathComponent(name + ".png").path
            let run = cropkit(
                "crop", generated.appendingPathComponent(name).path, "-o", output, "--viewport",
                "100x100",
                "--selection", "0,0,100,100")
            #expect(run.status == 2, "\(name): \(run.out)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(name)")
        }
        // With --lenient the truncated progressive file decodes, and says so.
        let lenient = cropkit(
            "crop", generated.appendingPathComponent("jpeg_progressive_trunc4134.jpg").path, "-o",
            folder.appendingPathComponent("ok.png").path, "--pixels", "0,0,10,10", "--lenient")
        #expect(lenient.status == 0)
        #expect(lenient.err.contains("accepted as lenient"))
        // Without it, the refusal names the flag that accepts it.
        let strict = cropkit(
            "crop", generated.appendingPathComponent("jpeg_progressive_trunc4134.jpg").path, "-o",
            folder.appendingPathComponent("strict.png").path, "--pixels", "0,0,10,10")
        #expect(strict.status == 2)
        #expect(strict.err.hasSuffix("; pass --lenient to accept it\n"), "\(strict.err)")
    }
}

extension CropCommandTests {
    /// `-o -` writes the PNG to standard output, whole, and the report to
    /// standard error; a crop that fails writes nothing there.
    @Test func dashWritesThePNGToStandardOutput() throws {
        let folder = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("corners.png").path
        let bytes = MemorySink()
        let out = StringSink()
        let err = StringSink()
        let console = Console(out: out, err: err, binaryOut: { bytes })
        // Standard output has no extension: the format must be named.
        let unnamed = cropkit("crop", input, "-o", "-", "--pixels", "10,20,30,40")
        #expect(unnamed.status == 64)
        #expect(
            unnamed.err.contains(
                "-o - needs --format png, --format jpeg, --format heic, --format webp or --format avif"
            ))
        let status = CropKitTool.run(
            ["crop", input, "-o", "-", "--format", "png", "--pixels", "10,20,30,40"],
            console: console)
        #expect(status == 0, "\(err.text)")
        #expect(out.text.isEmpty)
        #expect(err.text.contains("wrote the crop to standard output: 30x40 rgba 8-bit PNG"))
        let image = try ImageSource(ImageInput(bytes: bytes.bytes)).decode().image
        let expected = try PNGDecoder.decode(
            path: input, rect: PixelRect(x: 10, y: 20, width: 30, height: 40))
        #expect(image == expected)
        let failed = MemorySink()
        let refused = CropKitTool.run(
            [
                "crop", input, "-o", "-", "--format", "png", "--pixels", "0,0,10,10",
                "--max-pixels", "10",
            ],
            console: Console(out: StringSink(), err: StringSink(), binaryOut: { failed }))
        #expect(refused == 2)
        #expect(failed.bytes.isEmpty)
    }
}
