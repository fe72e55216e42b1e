import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// CropKit's memory model, measured on the real binary: an upright crop of
/// a non-interlaced PNG or a baseline JPEG streams in bounded memory
/// whatever its size, and what the format forces (a progressive frame, an
/// interlaced image, a turn) is refused past `--max-memory` before anything
/// is allocated.
@Suite(.announcesSkips, .enabled(if: KillTests.binary != nil, "no cropkit binary beside the tests"))
struct MemoryTests {
    /// Whether this run is under a sanitizer (`.ci/run` sets
    /// CROPKIT_SANITIZER for its AddressSanitizer run): its shadow memory and
    /// quarantine inflate every peak, so the bounds are not measured then.
    static let sanitized =
        ProcessInfo.processInfo.environment["CROPKIT_SANITIZER"] != nil
        || ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil

    /// Runs the cropkit binary's `crop` with `arguments` and `--json`; its
    /// exit status and the peak resident memory its report gives (Linux's
    /// VmHWM: wait4's ru_maxrss would count this test process too, since
    /// the child starts as a vfork of it).
    static func measure(_ arguments: [String]) throws -> (status: Int32, peak: Int, need: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(KillTests.binary))
        process.arguments = arguments + ["--json"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let report = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        let memory = report?["memory"] as? [String: Any]
        let peak = try #require(memory?["peakResident"] as? Int)
        return (process.terminationStatus, peak, memory?["need"] as? Int ?? 0)
    }

    /// A 12000×12000 baseline JPEG (144 MB of pixels) and a 5000×5000 RGBA
    /// PNG (100 MB), cropped whole: each peaks under 64 MB, as the rows are
    /// compressed and given back while the decode goes on.
    @Test(
        .enabled(if: !sanitized, "peaks are not measured under a sanitizer"),
        .enabled(
            if: TestGate.holds(Compressor.isLibdeflateAvailable, else: "without libdeflate"),
            "needs libdeflate (Debian: libdeflate0): the streamed PNG is compressed by it"))
    func uprightCropsStreamInBoundedMemory() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = folder.appendingPathComponent("big.jpg").path
        try Data(SyntheticJPEG.baselineGray(width: 12000, height: 12000)).write(
            to: URL(fileURLWithPath: jpeg))
        let png = folder.appendingPathComponent("big.png").path
        let flat = RasterImage(
            width: 5000, height: 5000, colorType: .rgba, bitDepth: 8,
            samples: [UInt8](repeating: 90, count: 5000 * 5000 * 4))
        try Data(PNGEncoder().encode(flat)).write(to: URL(fileURLWithPath: png))
        let output = folder.appendingPathComponent("out.png").path
        for (input, size) in [(jpeg, 12000), (png, 5000)] {
            let run = try Self.measure([
                "crop", input, "-o", output, "--force", "--pixels", "0,0,\(size),\(size)",
            ])
            #expect(run.status == 0, "\(input)")
            #expect(run.peak < 64 << 20, "\(input): peak \(run.peak >> 20) MB")
            let info = try PNGFileInfo.read(path: output)
            #expect(info.width == size && info.height == size)
        }
        // The streamed output holds the pixels: the JPEG's crop is mid-gray.
        let corner = try PNGDecoder.decode(
            path: output, rect: PixelRect(x: 4990, y: 4990, width: 10, height: 10))
        #expect(corner.samples == [UInt8](repeating: 90, count: 400))
    }

    /// A progressive 4000×4000 frame holds 16 MB of coefficients for a
    /// 1×1 crop; a turned crop holds the crop: past --max-memory both are
    /// refused at once with the need named, and exit 2; within it, cropped.
    @Test func whatTheFormatForcesIsRefusedPastTheBudget() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let progressive = folder.appendingPathComponent("p.jpg").path
        try Data(SyntheticJPEG.scanBomb(width: 4000, height: 4000, scans: 6)).write(
            to: URL(fileURLWithPath: progressive))
        let output = folder.appendingPathComponent("out.png").path
        let refused = cropkit(
            "crop", progressive, "-o", output, "--pixels", "0,0,1,1", "--max-memory", "8M")
        #expect(refused.status == 2)
        #expect(
            refused.err.contains("the progressive frame's coefficients 32 MB"), "\(refused.err)")
        #expect(refused.err.contains("--max-memory"))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(
            cropkit("crop", progressive, "-o", output, "--pixels", "0,0,1,1", "--max-memory", "64M")
                .status == 0)

        let baseline = folder.appendingPathComponent("b.jpg").path
        try Data(SyntheticJPEG.baselineGray(width: 3000, height: 3000)).write(
            to: URL(fileURLWithPath: baseline))
        let turned = cropkit(
            "crop", baseline, "-o", output, "--force", "--pixels", "0,0,3000,3000",
            "--orientation", "6", "--max-memory", "8M")
        #expect(turned.status == 2)
        #expect(turned.err.contains("the decoded crop 9000 kB"), "\(turned.err)")
        // Upright, the same crop streams within the same budget... once the
        // window fits: a budget of the window and a little more.
        #expect(
            cropkit(
                "crop", baseline, "-o", output, "--force", "--pixels", "0,0,3000,3000",
                "--max-memory", "64M"
            ).status == 0)
    }

    /// The need a crop reports is what it adds to the program's own memory,
    /// on every path that holds a crop whole: a HEIC's decoded tiles, turned
    /// and encoded as JPEG; a PNG and a JPEG encoded again, turned; a HEIC
    /// crop off the tile grid (its edge tiles decoded and encoded by x265).
    /// Each run's peak, less its need, is at most what the same path peaks
    /// at for a 4x4 crop (the program, its libraries, their tables) and a
    /// little allocator slack; so the budget, the need plus
    /// ``DecodeLimits/programMemory``, bounds the peak. The turned HEIC's
    /// JPEG peaked 39 MB over its need (a copy of the crop kept alive), and
    /// a 6400x6400 HEIC's JPEG at 263 MiB under the 256 MiB default, before.
    @Test(
        .enabled(if: !sanitized, "peaks are not measured under a sanitizer"),
        .enabled(if: TestData.isPresent && HEIFDecoder.libheifVersion != nil, "no HEIC test data"))
    func theNeedCoversWhatACropHolds() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = TestData.path("heif/pillow-heif/arrow.heic")
        let png = folder.appendingPathComponent("photo.png").path
        let jpeg = folder.appendingPathComponent("photo.jpg").path
        for made in [png, jpeg] {
            #expect(cropkit("crop", photo, "-o", made, "--pixels", "0,0,2000,2000").status == 0)
        }
        let out = folder.appendingPathComponent("out").path
        var cases: [(input: String, arguments: [String], small: [String])] = [
            (photo, ["-o", out + ".jpg", "--pixels", "0,0,3024,4032"], ["-o", out + ".jpg"]),
            (
                png, ["-o", out + ".jpg", "--pixels", "0,0,2000,2000", "--orientation", "6"],
                ["-o", out + ".jpg"]
            ),
            (
                jpeg, ["-o", out + ".jpg", "--pixels", "1,1,1990,1990", "--orientation", "8"],
                ["-o", out + ".jpg"]
            ),
        ]
        if HEIFEncoder.canEncodeTiles {
            // The 4x4 run writes PNG: x265's allowance is the HEIC's own.
            cases.append(
                (photo, ["-o", out + ".heic", "--pixels", "1,1,1000,1000"], ["-o", out + ".png"]))
        }
        for (input, arguments, small) in cases {
            let tiny = try Self.measure(["crop", input, "--force", "--pixels", "1,1,4,4"] + small)
            let run = try Self.measure(["crop", input, "--force"] + arguments)
            #expect(tiny.status == 0 && run.status == 0, "\(arguments)")
            let base = tiny.peak - tiny.need
            #expect(
                run.peak - run.need <= base + 4 << 20,
                "\(input) \(arguments): peak \(run.peak >> 20) MiB, need \(run.need >> 20) MiB, a 4x4 crop's base \(base >> 20) MiB"
            )
        }
    }

    /// A crop given a budget of its stated need plus the program's and 10 %
    /// succeeds, on every path that states a need: a whole-frame lossless
    /// crop of a 3264x2448 JPEG stated 48 MB and failed under 50 and 60 MB
    /// with "JPEG data is corrupt: Backing store not supported", since the
    /// crop's coefficient arrays counted the sampling factor twice (4x the
    /// luma blocks of a 4:2:0 frame); libjpeg's running out of its budget
    /// is now a memory error that names --max-memory, not corrupt data.
    @Test(
        .enabled(if: TestData.isPresent && HEIFDecoder.libheifVersion != nil, "no HEIC test data"))
    func aBudgetOfTheNeedIsEnough() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = TestData.path("heif/imagesize/heic.heic")
        let jpeg = folder.appendingPathComponent("photo.jpg").path
        let progressive = folder.appendingPathComponent("progressive.jpg").path
        let png = folder.appendingPathComponent("photo.png").path
        #expect(cropkit("crop", photo, "-o", jpeg, "--pixels", "0,0,2448,3264").status == 0)
        #expect(cropkit("crop", photo, "-o", png, "--pixels", "0,0,2400,1600").status == 0)
        try Data(
            SyntheticJPEG.scanBomb(width: 2400, height: 1600, scans: 6)
        ).write(to: URL(fileURLWithPath: progressive))
        let out = folder.appendingPathComponent("out").path
        let cases: [[String]] = [
            [jpeg, "-o", out + ".jpg", "--pixels", "0,0,2448,3264"],
            [jpeg, "-o", out + ".jpg", "--pixels", "16,16,1600,1600"],
            [jpeg, "-o", out + ".jpg", "--pixels", "3,5,1600,1600"],
            [jpeg, "-o", out + ".png", "--pixels", "0,0,3264,2448", "--orientation", "6"],
            [progressive, "-o", out + ".jpg", "--pixels", "0,0,2400,1600"],
            [progressive, "-o", out + ".png", "--pixels", "0,0,2400,1600"],
            [png, "-o", out + ".jpg", "--pixels", "0,0,2400,1600", "--width", "1000"],
            [photo, "-o", out + ".jpg", "--pixels", "0,0,2448,3264"],
        ]
        for arguments in cases {
            let stated = cropkit(["crop"] + arguments + ["--force", "--max-memory", "1K"])
            #expect(stated.status == 2)
            // "the crop would hold N bytes of memory at once (...)": N is
            // the need with the program's part.
            let need = try #require(Self.statedBytes(stated.err), "\(arguments): \(stated.err)")
            let budget = need + need / 10
            let run = cropkit(["crop"] + arguments + ["--force", "--max-memory", "\(budget)"])
            #expect(run.status == 0, "\(arguments) within \(budget): \(run.err)")
        }
    }

    static func statedBytes(_ message: String) -> Int? { CropKitBinary.statedBytes(message) }

    /// The peak resident memory of the cropkit binary running `arguments`,
    /// as its VmHWM read every few milliseconds until it exits (the high
    /// water mark only grows, so only a rise in its last moments can be
    /// missed); `nil` where /proc is missing.
    static func watchPeak(_ arguments: [String]) throws -> (status: Int32, peak: Int)? {
        guard FileManager.default.fileExists(atPath: "/proc/self/status"),
            let run = try CropKitBinary.watch(arguments)
        else { return nil }
        return (run.status, run.peak)
    }

    /// `replay --export` of one record over a 4000×4000 source (fixtures of
    /// 64 and 96 MB of pixels, crops of 54 and 81 MB) stays under 80 MB:
    /// the fixtures are compressed while made and the crops checked row by
    /// row as they decode. It held every image whole before (200 MB here).
    @Test(
        .enabled(if: !sanitized, "peaks are not measured under a sanitizer"),
        .enabled(if: TestGate.procStatus, "peaks are read from /proc"),
        .enabled(
            if: TestGate.holds(Compressor.isLibdeflateAvailable, else: "without libdeflate"),
            "needs libdeflate (Debian: libdeflate0)"))
    func exportChecksOfABigRecordStream() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("big.jsonl").path
        try Data(
            (#"{"source":{"width":4000,"height":4000},"viewport":{"width":400,"height":400},"#
                + #""selection":{"x":20,"y":30,"width":300,"height":250},"mode":"aspectFit"}"#
                + "\n")
                .utf8
        ).write(to: URL(fileURLWithPath: records))
        let exports = folder.appendingPathComponent("exports").path
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        let run = try #require(try Self.watchPeak(["replay", records, "--export", exports]))
        #expect(run.status == 0)
        #expect(run.peak > 0 && run.peak < 80 << 20, "peak \(run.peak >> 20) MB")
        let crop = try PNGFileInfo.read(path: exports + "/line-1.png")
        #expect(crop.width == 3000 && crop.height == 2500)
    }

    /// A manifest is read a line at a time and its report written as it
    /// goes: 16,000 lines (2 MB) peak within 8 MB of 100 lines' run. It
    /// held the manifest, its lines and every outcome before, 10 MB a
    /// manifest MB, which is 20 MB here. (A 50,000-line manifest under a
    /// fixed 48 MB took 7.7 s of a debug build; the difference of two runs
    /// says the same of a third of the lines.)
    @Test(
        .enabled(if: !sanitized, "peaks are not measured under a sanitizer"),
        .enabled(if: TestGate.procStatus, "peaks are read from /proc"))
    func batchStreamsItsManifest() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(lines: Int) throws -> Int {
            let manifest = folder.appendingPathComponent("m-\(lines).jsonl").path
            var text = ""
            for index in 0..<lines {
                text +=
                    #"{"input":"in/missing-\#(index).png","output":"out/a/b/c/o-\#(index).png","pixels":{"x":1,"y":2,"width":30,"height":40}}"#
                    + "\n"
            }
            try Data(text.utf8).write(to: URL(fileURLWithPath: manifest))
            let report = folder.appendingPathComponent("r-\(lines).jsonl").path
            let run = try #require(try Self.watchPeak(["batch", manifest, "--report", report]))
            #expect(run.status == 1)
            let written = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
            #expect(written.count == lines)
            #expect(
                written.last?.hasPrefix(#"{"schemaVersion":1,"line":\#(lines),"status":"failed""#)
                    == true)
            return run.peak
        }
        let few = try run(lines: 100)
        let many = try run(lines: 16_000)
        #expect(few > 0 && many - few < 8 << 20, "peaks \(few >> 20) and \(many >> 20) MB")
    }

    /// --max-memory takes bytes or K, M, G suffixes, and refuses others.
    @Test func budgetFlagTakesSuffixes() {
        for bad in ["0", "-1", "12X", "M", "9999999999G"] {
            let run = cropkit(
                "crop", "in.png", "-o", "o.png", "--pixels", "0,0,1,1", "--max-memory", bad)
            #expect(run.status == 64, "\(bad)")
            #expect(run.err.contains("--max-memory must be a positive number of bytes"), "\(bad)")
        }
    }

    /// A one-image AVIF is decoded whole (an AV1 frame cannot be decoded in
    /// part) by libavif, and only the crop's rows and columns are converted
    /// to RGB: the 12 MP photo's centre 2000x1500 peaks within its YCbCr
    /// frame (18 MB) and the crop's RGB (9 MB) over a 1x1 AVIF's run, plus
    /// 16 MB. Through libheif, which converts the whole frame, it was 90 MB
    /// over.
    @Test(
        .enabled(if: !sanitized, "peaks are not measured under a sanitizer"),
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        .enabled(if: RuntimeLibrary.libavif.isAvailable, "needs libavif (Debian: libavif15)"))
    func aOneImageAVIFHoldsItsFrameNotItsRGB() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.png").path
        let tiny = try Self.measure([
            "crop", TestData.path("avif/generated/coords_1x1_lossless.avif"), "-o", out,
            "--pixels", "0,0,1,1", "-f",
        ])
        let centre = try Self.measure([
            "crop", TestData.path("avif/generated/photo_pug_4032x3024_q60.avif"), "-o", out,
            "--pixels", "1017,763,2000,1500", "-f",
        ])
        #expect(tiny.status == 0 && centre.status == 0)
        let frame = 4032 * 3024 * 3 / 2
        let crop = 2000 * 1500 * 3
        #expect(
            centre.peak - tiny.peak <= frame + crop + 16 << 20,
            "peak \(centre.peak >> 20) MB, \((centre.peak - tiny.peak) >> 20) MB over a 1x1 crop")
    }

    /// Every corrupt WebP and AVIF of the test data (bombs of a 16384x16384
    /// canvas over a few bytes, truncations, size overflows, reference
    /// cycles) in one batch, a line at a time: each line ends written or
    /// failed, and the run peaks under 256 MB (the time each takes is
    /// scripts/gauntlet's to bound, on a quiet machine: these files are in
    /// its corpus).
    @Test(
        .enabled(if: !sanitized, "peaks are not measured under a sanitizer"),
        .enabled(if: TestGate.procStatus, "peaks are read from /proc"),
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func corruptWebPAndAVIFStayUnder256MB() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files =
            TestData.files(under: "corrupt/webp", extensions: ["webp"])
            + TestData.files(under: "corrupt/avif", extensions: ["avif"])
        #expect(files.count >= 60)
        var text = ""
        for (index, file) in files.enumerated() {
            text +=
                #"{"input":"\#(TestData.path(file))","output":"o-\#(index).png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#
                + "\n"
        }
        let manifest = folder.appendingPathComponent("m.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: manifest))
        let report = folder.appendingPathComponent("r.jsonl").path
        let run = try #require(
            try Self.watchPeak(["batch", manifest, "--jobs", "1", "--report", report]))
        #expect(run.status == 1, "most of them are refused")
        #expect(run.peak > 0 && run.peak < 256 << 20, "peak \(run.peak >> 20) MB")
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == files.count)
        #expect(
            lines.allSatisfy {
                $0.contains(#""status":"failed""#) || $0.contains(#""status":"written""#)
            })
    }
}
