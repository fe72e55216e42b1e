import CropGeometry
import CropImaging
import CropRecords
import Foundation

/// `cropkit demo`: the article's scenario end to end, on embedded numbers.
struct DemoCommand: Subcommand {
    static let name = "demo"
    static let summary = "run the article's scenario and the six input categories end to end"
    static let usage = """
        Usage: cropkit demo [--output DIR]

        The main job on embedded numbers: the article's scenario (a 4000x3000 photo
        aspect-fit in a 300x300 view, the centre selection) and one case from each
        of the six input categories, end to end. For each: the exact mapping, a
        diagram, a replayable record, an export from fixtures of the photo's size
        through the same code as 'cropkit crop', and the four export checks; a
        JPEG crop of a phone photo, lossless, with the metadata it kept, rewrote
        and dropped and the leaks before and after; a HEIC crop of an iPhone-like
        photo (its tiles copied, only the tiles under the crop decoded; skipped
        without libheif); then one HTML report, and a
        case where plain Double arithmetic (the article's code) adds a pixel
        while CropKit is exact. Everything goes into DIR
        (default ./cropkit-demo); a second run replaces that folder's own files
        and refuses a folder it did not make.
        """
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "output", value: "DIR", help: "the folder to write (default ./cropkit-demo)",
            short: "o"),
        .quiet,
    ]

    /// The file that marks a folder as the demo's own.
    static let marker = ".cropkit-demo"

    var folder: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
        }
        folder = parsed.values["output"] ?? "cropkit-demo"
    }

    typealias Case = DemoCase

    /// The article's scenario and one case of each input category.
    static let cases: [Case] = {
        func request(
            _ source: (Double, Double), _ view: (Double, Double),
            _ s: (Double, Double, Double, Double)
        )
            -> CropRequest
        {
            CropRequest(
                sourceSize: Size(width: source.0, height: source.1),
                viewport: Size(width: view.0, height: view.1),
                selection: Rect(x: s.0, y: s.1, width: s.2, height: s.3))
        }
        // The cases of one photo size follow each other, so that its
        // fixtures are made once.
        return [
            Case(
                title: "the article's scenario (centre selection)",
                request: request((4000, 3000), (300, 300), (75, 75, 150, 150))),
            Case(
                title: "beyond an edge (clipped)",
                request: request((4000, 3000), (300, 300), (250, 200, 100, 100))),
            Case(
                title: "fractional edges (rounded outward)",
                request: request((4000, 3000), (300, 300), (10.01, 40.3, 33.33, 20.07))),
            Case(
                title: "padding only (no pixels)",
                request: request((4000, 3000), (300, 300), (10, 5, 100, 30))),
            Case(
                title: "landscape photo, letterboxed",
                request: request((4032, 3024), (390, 844), (20, 300, 200, 150))),
            Case(
                title: "portrait photo, pillarboxed",
                request: request((3024, 4032), (844, 390), (300, 20, 150, 200))),
            // A smaller photo where the size proves nothing: a whole-view
            // selection adds no border at any size (and 12 MP of fixtures
            // would double the demo's time in a debug build).
            Case(
                title: "full selection (whole view of a 1600x1200 photo)",
                request: request((1600, 1200), (300, 300), (0, 0, 300, 300))),
        ]
    }()

    func run(console: Console) -> Int32 {
        Self.run(Self.cases, in: folder, console: console)
    }

    /// Makes `folder` an empty demo folder (its marker, `diagrams/`,
    /// `exports/`): a folder this command made loses its files, any other
    /// non-empty one is refused. Nil when ready, else the exit status, said
    /// on `console`.
    static func prepare(_ folder: String, console: Console) -> Int32? {
        let files = FileManager.default
        // Replace only a folder this command made.
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: folder, isDirectory: &isFolder) {
            let contents = (try? files.contentsOfDirectory(atPath: folder)) ?? []
            guard isFolder.boolValue, contents.isEmpty || contents.contains(Self.marker) else {
                console.err.write(
                    "error: '\(field: folder)' exists and is not a CropKit demo folder; choose another --output\n"
                )
                return ExitCode.usage
            }
            for name in contents { try? files.removeItem(atPath: folder + "/" + name) }
        }
        do {
            for path in [folder, folder + "/diagrams", folder + "/exports"] {
                try files.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            try Data("made by cropkit demo; a second run replaces this folder\n".utf8).write(
                to: URL(fileURLWithPath: folder + "/" + Self.marker))
        } catch {
            console.err.write(
                "error: cannot write '\(field: folder)': \(field: error.localizedDescription)\n")
            return ExitCode.badInput
        }
        return nil
    }

    /// The demo of `cases` into `folder`: the library calls behind it, with
    /// no command line in between (a test runs it on small cases).
    static func run(_ cases: [Case], in folder: String, console: Console) -> Int32 {
        if let refused = prepare(folder, console: console) { return refused }
        let diagrams = folder + "/diagrams"
        let exports = folder + "/exports"
        let started = Date()
        console.out.write(
            """
            CropKit demo: exact crops of what a person selected, checked pixel by pixel.
            For each case: map the selection to source pixels, draw it, export the crop
            from two fixtures of the photo's size through the same code as 'cropkit
            crop', and check it four ways. Writing into \(folder)/.


            """)
        console.flush()
        // Each case is mapped, drawn, recorded, then exported and checked as
        // `cropkit replay --export` does (fixtures of its size, the real crop
        // pipeline, the checks), and said as it finishes.
        var replayer = RecordReplayer(exportFolder: exports, defaultOrientation: nil)
        var report = ReplayReport()
        var records: [String] = []
        var replayed: [String] = []
        var (passed, failed) = (0, 0)
        for (index, demoCase) in cases.enumerated() {
            let caseStarted = Date()
            let r = demoCase.request
            let outcome = r.result()
            let number = String(format: "%02d", index + 1)
            try? Data(CropDiagram.svg(for: r).utf8).write(
                to: URL(fileURLWithPath: "\(diagrams)/\(number).svg"))
            let expected: CropRecord.Expectation =
                switch outcome {
                case .success(let result):
                    .rect(
                        x: Double(result.rect.x), y: Double(result.rect.y),
                        width: Double(result.rect.width),
                        height: Double(result.rect.height), stored: nil)
                case .failure: .rejected
                }
            let record = CropRecord(
                request: r, expected: expected, extra: [.init("case", .string(demoCase.title))])
            records.append(record.json.text)
            console.out.write("\(number) \(demoCase.title)\n")
            console.out.write(
                "   source \(format(r.sourceSize.width))x\(format(r.sourceSize.height)), view \(format(r.viewport.width))x\(format(r.viewport.height)), selection \(r.selection)\n"
            )
            switch outcome {
            case .success(let result):
                console.out.write(
                    "   -> pixels \(result.rect) (x,y,width,height), exact; exporting and checking...\n"
                )
            case .failure(let rejection):
                console.out.write("   -> no pixels (\(rejection.code)): nothing to export\n")
            }
            console.flush()
            let replay = replayer.replay(record, line: index + 1)
            if replay.passed { passed += 1 } else { failed += 1 }
            replayed.append(replay.line.text)
            var row = RecordReplayer.reportRow(replay, line: index + 1, text: record.json.text)
            row.title = demoCase.title
            report.add(row)
            if !replay.checks.isEmpty {
                let verdicts = replay.checks.map { "\($0.name) \($0.passed ? "ok" : "FAILED")" }
                console.out.write(
                    "   checks: \(verdicts.joined(separator: ", ")) (\(String(format: "%.1f", Date().timeIntervalSince(caseStarted))) s)\n"
                )
            }
            for problem in replay.problems { console.out.write("   FAILED: \(problem)\n") }
            console.flush()
        }
        let jpeg = jpegCase(
            number: String(format: "%02d", cases.count + 1), in: folder, console: console)
        let heic = heicCase(
            number: String(format: "%02d", cases.count + 2), in: folder, console: console)
        let straightened = straightenCase(
            number: String(format: "%02d", cases.count + 3), in: folder, console: console)
        let variants = variantsCase(
            number: String(format: "%02d", cases.count + 4), in: folder, console: console)
        let recordsPath = folder + "/records.jsonl"
        try? Data((records.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: recordsPath))
        try? Data((replayed.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: folder + "/replayed.jsonl"))
        let trap = doubleTrap
        let article = articleCropPixels(
            source: trap.source, viewport: trap.viewport, selection: trap.selection)
        let exact = cropPixels(
            source: trap.source, viewport: trap.viewport, selection: trap.selection)
        report.introduction = introduction(cases.first?.request)
        report.closing =
            jpeg.html + heic.html + straightened.html + variants.html
            + closing(article: article, exact: exact)
        try? Data(
            report.html(
                title: "CropKit demo: which pixels a selection covers, exactly", passed: passed,
                failed: failed
            ).utf8
        ).write(to: URL(fileURLWithPath: folder + "/report.html"))
        let summary = "\(passed) passed, \(failed) failed"
        console.out.write(
            """

            What it proved (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)
              exports and checks: \(summary) (size equals the mapping, markers only where
                the crop overlaps them, no transparent pixel, every pixel the right one)
              a JPEG crop of a phone photo: \(jpeg.summary)
              a HEIC crop of an iPhone-like photo: \(heic.summary)
              the photo straightened by 3.5 degrees: \(straightened.summary)
              three variants from one decode: \(variants.summary)
              where plain Double arithmetic is wrong: source 4000x3000, view 300x300,
                selection \(describe(trap.selection))
                the article's Double code: \(article.map(describe) ?? "no pixels")
                CropKit (exact):           \(exact.map(describe) ?? "no pixels")

            Where to look (\(folder)/)
              report.html      every case: what was selected, which pixels, the checks, the crop
              diagrams/*.svg   the view, the padding, the selection and the pixels
              exports/*.png    each crop, cut from a fixture of the photo's size
              records.jsonl    replayable records: cropkit replay \(recordsPath)
              photo.jpg        the phone photo; crop.jpg its JPEG crop (cropkit leaks crop.jpg)
              photo.heic       the iPhone-like photo; crop.heic its HEIC crop (crop-lossless.heic
                               grown to the tile grid), crop-heic.png the same crop as PNG
              straightened-*.png the photo turned 3.5 degrees: the whole view (fill at the
                               corners) and the largest rect inside (no fill)
              variant-*.jpg    1:1, 4:5 and 16:9 crops at 270 wide, from one decode


            """)
        return failed == 0 && jpeg.passed && heic.passed && straightened.passed && variants.passed
            ? ExitCode.success : ExitCode.failure
    }

    /// The HEIC case: an iPhone-like photo (a grid of 256x256 HEVC tiles
    /// stored sideways with `irot 270`, a thumbnail, an HDR gain map, EXIF
    /// with a thumbnail), cropped to HEIC (the tiles under the crop copied,
    /// the edge tiles fixed) and to PNG (only those tiles decoded). Passes
    /// when the crop shows the rect as seen and holds no leak. Without
    /// libheif's encoder (or libheif) it is skipped, and says so.
    static func heicCase(number: String, in folder: String, console: Console)
        -> (html: String, summary: String, passed: Bool)
    {
        let photoPath = folder + "/photo.heic"
        let cropPath = folder + "/crop.heic"
        let pngPath = folder + "/crop-heic.png"
        let title = "a HEIC crop of an iPhone-like photo (a tile grid, irot 270, a gain map)"
        console.out.write("\(number) \(title)\n")
        console.flush()
        guard HEIFDecoder.libheifVersion != nil, HEIFEncoder.canEncodeTiles else {
            console.out.write(
                "   skipped: libheif (Debian's libheif1) with an HEVC encoder is not installed\n")
            return ("", "skipped (no libheif)", true)
        }
        do {
            let photo = try DemoPhoto.heic(width: 1024, height: 768)
            try AtomicFile.write(photo, to: photoPath, replacing: true)
            let source = try ImageSource.open(path: photoPath)
            let request = CropRequest(
                sourceSize: Size(width: 1024, height: 768), viewport: Size(width: 300, height: 400),
                selection: Rect(x: 60, y: 90, width: 150, height: 200), orientation: .right)
            let job = CropJob(region: .view(request, aspect: nil), format: .heif(HEIFEncoder()))
            let plan = try job.plan(for: source)
            let report = try plan.write(to: cropPath, replacing: true)
            var pngJob = job
            pngJob.format = .png(PNGEncoder())
            _ = try pngJob.plan(for: source).write(to: pngPath, replacing: true)
            // Grown to the tile grid, every tile is copied: lossless.
            var snappedJob = job
            snappedJob.format = .heif(HEIFEncoder(snapsToBlocks: true))
            let snappedPlan = try snappedJob.plan(for: source)
            let snapped = try snappedPlan.write(to: folder + "/crop-lossless.heic", replacing: true)
            let cropped = try ImageSource.open(path: cropPath)
            let before = try LeakCheck.findings(in: source)
            let after = try LeakCheck.findings(in: cropped)
            let seen = cropped.orientation.orientedSize(cropped.storedSize)
            let heif = report.details(as: HEIFWriteReport.self)
            let entries = report.metadata
            console.out.write(
                "   source 1024x768 stored as 4x3 tiles of 256x256 (seen 768x1024, irot 270), view 300x400, selection \(request.selection)\n"
            )
            console.out.write(
                "   -> pixels \(plan.result.rect) as seen, stored \(plan.stored): \(heif?.copiedTiles ?? 0) tile(s) copied, \(heif?.reencodedTiles ?? 0) edge tile(s) encoded again, clap \(heif?.cleanAperture.map { "\($0)" } ?? "none"), \(heif?.transforms.joined(separator: " ") ?? ""), \(report.bytes) bytes\n"
            )
            console.out.write(
                "   -> with --snap-to-blocks: pixels \(snappedPlan.result.rect) (the rect grown to the tile grid): \(snapped.details(as: HEIFWriteReport.self)?.copiedTiles ?? 0) tile(s) copied, none encoded: lossless, \(snapped.bytes) bytes\n"
            )
            for entry in entries where entry.action != .kept {
                console.out.write("   \(entry.action.rawValue) \(entry.segment): \(entry.reason)\n")
            }
            console.out.write(
                "   leaks: the photo has \(before.count), the crop \(after.count)\(after.isEmpty ? "" : ": \(after)")\n"
            )
            console.flush()
            let passed =
                after.isEmpty && !before.isEmpty && seen == plan.result.rect.size
                && snapped.details(as: HEIFWriteReport.self)?.reencodedTiles == 0
            let figure = metadataFigure(
                image: pngPath, type: "image/png", alt: "the HEIC crop, as PNG", entries: entries,
                kind: "item")
            let html = """
                <h2 id="heic">An iPhone photo's crop that stays HEIC</h2>
                <div class="intro"><p>A 1024&times;768 photo stored as an iPhone stores one: a grid of HEVC tiles
                (256&times;256 here, 512&times;512 on most iPhones), sideways with <code>irot 270</code> (seen 768&times;1024), with a thumbnail, an HDR gain map
                and an EXIF thumbnail of the whole photo. The selection covers pixels <b>\(plan.result.rect)</b> as
                seen, stored \(plan.stored). The HEIC crop copies the \(heif?.copiedTiles ?? 0) tile(s) inside it byte
                for byte and encodes again the \(heif?.reencodedTiles ?? 0) edge tile(s) that would still hold pixels
                beyond it; a clean aperture cuts the exact rect and <code>irot 270</code> keeps it as seen
                (\(report.bytes) bytes). With <code>--snap-to-blocks</code> the rect grows to the tile grid,
                \(snappedPlan.result.rect), and all \(snapped.details(as: HEIFWriteReport.self)?.copiedTiles ?? 0) tiles are copied: nothing is
                encoded (\(snapped.bytes) bytes). The PNG below is the same crop, from only the tiles under it. The photo
                has \(before.count) leak(s) that <code>cropkit leaks</code> finds; the crop has \(after.count).</p></div>
                \(figure)

                """
            return (
                html,
                "\(heif?.copiedTiles ?? 0) tile(s) copied, \(heif?.reencodedTiles ?? 0) encoded again, leaks \(before.count) -> \(after.count)",
                passed
            )
        } catch {
            console.err.write("error: the HEIC case: \(field: error)\n")
            return ("", "failed: \(error)", false)
        }
    }

    /// The JPEG case: a phone photo holding every kind of leak (a thumbnail,
    /// GPS, a maker-note preview, an XMP preview, an MPF gain map, data after
    /// the image), cropped to JPEG losslessly; what was kept, rewritten and
    /// dropped, and the leaks before and after. Passes when the crop is
    /// lossless and holds no leak.
    static func jpegCase(number: String, in folder: String, console: Console)
        -> (html: String, summary: String, passed: Bool)
    {
        let photoPath = folder + "/photo.jpg"
        let cropPath = folder + "/crop.jpg"
        let title = "a JPEG crop of a phone photo (EXIF orientation 6, every kind of leak)"
        console.out.write("\(number) \(title)\n")
        console.flush()
        do {
            let photo = try DemoPhoto.jpeg(width: 1024, height: 768, orientation: 6)
            try AtomicFile.write(photo, to: photoPath, replacing: true)
            let source = try ImageSource.open(path: photoPath)
            let request = CropRequest(
                sourceSize: Size(width: 1024, height: 768), viewport: Size(width: 300, height: 400),
                selection: Rect(x: 75, y: 100, width: 150, height: 200), orientation: .right)
            let plan = try CropJob(
                region: .view(request, aspect: nil), format: .jpeg(JPEGEncoder())
            )
            .plan(for: source)
            let report = try plan.write(to: cropPath, replacing: true)
            let before = try LeakCheck.findings(in: source)
            let after = try LeakCheck.findings(in: ImageSource.open(path: cropPath))
            let method = report.details(as: JPEGWriteReport.self)?.method ?? .reencoded
            let entries = report.metadata
            console.out.write(
                "   source 1024x768 stored (seen 768x1024), view 300x400, selection \(request.selection)\n"
            )
            console.out.write(
                "   -> pixels \(plan.result.rect) as seen, stored \(plan.stored): \(method.rawValue), \(report.bytes) bytes, orientation 6 kept\n"
            )
            for entry in entries {
                console.out.write("   \(entry.action.rawValue) \(entry.segment): \(entry.reason)\n")
            }
            console.out.write(
                "   leaks: the photo has \(before.count), the crop \(after.count)\(after.isEmpty ? "" : ": \(after)")\n"
            )
            console.flush()
            let passed = method == .lossless && after.isEmpty && !before.isEmpty
            let figure = metadataFigure(
                image: cropPath, type: "image/jpeg", alt: "the JPEG crop", entries: entries,
                kind: "segment")
            let html = """
                <h2 id="jpeg">A JPEG crop that stays JPEG, and leaks nothing</h2>
                <div class="intro"><p>A 1024&times;768 phone photo, stored sideways with EXIF orientation 6 (seen
                768&times;1024), carrying what phones and cameras carry: a thumbnail of the whole photo in its EXIF,
                GPS, a maker note with a preview, an XMP preview, an MPF index and a gain map after the end of the
                image. The selection covers pixels <b>\(plan.result.rect)</b> as seen, stored \(plan.stored), whose
                corner lies on the 16-pixel block grid: the crop copies the DCT coefficients of those blocks
                (<b>\(method.rawValue)</b>, \(report.bytes) bytes) and keeps the orientation, so it shows as seen.
                The photo has \(before.count) leak(s) that <code>cropkit leaks</code> finds; the crop has
                \(after.count). The photo is synthetic, made by the demo: gradients with a fine repeating
                pattern, so that every 8&times;8 block has coefficients of its own; the bands that pattern draws
                along its edges are part of the picture, not damage.</p></div>
                \(figure)

                """
            return (
                html,
                "\(method.rawValue), \(entries.filter { $0.action == .dropped }.count) segment(s) dropped, leaks \(before.count) -> \(after.count)",
                passed
            )
        } catch {
            console.err.write("error: the JPEG case: \(field: error)\n")
            return ("", "failed: \(error)", false)
        }
    }

    /// A crop's picture (the file at `image`, inline) beside the table of
    /// what became of each piece of its source's metadata.
    static func metadataFigure(
        image: String, type: String, alt: String, entries: [MetadataEntry], kind: String
    ) -> String {
        let rows = entries.map { entry in
            "<tr><td>\(escape(entry.segment))</td><td>\(entry.action.rawValue)</td><td>\(escape(entry.reason))</td></tr>"
        }.joined()
        let picture =
            FileManager.default.contents(atPath: image).map {
                "<img alt=\"\(alt)\" src=\"data:\(type);base64,\($0.base64EncodedString())\">"
            } ?? ""
        return
            "<div class=\"figure\">\(picture)<table><tr><th>\(kind)</th><th>action</th><th>why</th></tr>\(rows)</table></div>"
    }

    /// The report's opening: the article's scenario told with its numbers.
    static func introduction(_ scenario: CropRequest?) -> String {
        guard let scenario, let display = try? scenario.displayRect(),
            case .success(let result) = scenario.result()
        else { return "" }
        let (w, h) = (format(scenario.sourceSize.width), format(scenario.sourceSize.height))
        let (vw, vh) = (format(scenario.viewport.width), format(scenario.viewport.height))
        let s = scenario.selection
        return """
            <p>A person looks at a \(w)&times;\(h) photo shown <b>aspect-fit</b> in a \(vw)&times;\(vh)-point
            image view: the picture fills \(format(display.width))&times;\(format(display.height)) points at
            (\(format(display.x)), \(format(display.y))), and the rest of the view is padding. They drag a
            selection from (\(format(s.x)), \(format(s.y))) to (\(format(s.x + s.width)), \(format(s.y + s.height))) in the view.
            Which pixels of the photo does that cover? CropKit intersects the selection with the visible
            picture, converts the edges to pixels in exact arithmetic, and rounds outward: pixels
            <b>\(result.rect)</b> (x, y, width, height). Not one pixel more or less, and no &plusmn;1 tolerance.</p>
            <p>Each row below is one case: the article's scenario first, then one of each kind of input a
            crop screen meets (letterboxed and pillarboxed photos, the whole view, padding only, a selection
            past an edge, fractional edges). The diagram shows the view (\(Self.swatch("#e5e5e5")) gray: padding), the picture (\(Self.swatch("#bcd7f2")) blue,
            dashed where drawn), the selection (\(Self.swatch("#e07b00")) orange, dashed), the part of it on the picture (\(Self.swatch("#f6c891")) light orange)
            and the pixels the mapping gives (\(Self.swatch("#1a8f3a")) green). Beside it is the crop itself, exported from a fixture
            of the photo's size (gray, a coloured square in each corner, a black cross at the centre)
            through the same code as <code>cropkit crop</code>, and checked four ways:</p>
            <ol type="a"><li>the exported width and height equal the mapping's;</li>
            <li>each corner's marker appears only where the crop overlaps that corner;</li>
            <li>no pixel is transparent: a whole-view selection adds no border;</li>
            <li>on a second fixture whose every pixel holds its own position, every output pixel is the
            right source pixel.</li></ol>
            """
    }

    /// The report's end: the case where plain Double arithmetic adds a pixel.
    /// A small square of `color` for the report's legend, so a colour is
    /// seen, not only named.
    static func swatch(_ color: String) -> String {
        "<span style=\"display:inline-block;width:0.8em;height:0.8em;background:\(color);border:1px solid #555;vertical-align:-0.1em\"></span>"
    }

    static func closing(article: CGRect?, exact: CGRect?) -> String {
        let trap = doubleTrap
        let request = CropRequest(
            sourceSize: Size(width: Double(trap.source.width), height: Double(trap.source.height)),
            viewport: Size(
                width: Double(trap.viewport.width), height: Double(trap.viewport.height)),
            selection: Rect(trap.selection))
        return """
            <h2 id="double">Where plain Double arithmetic adds a pixel</h2>
            <div class="intro"><p>The same photo and view, with the selection at \(describe(trap.selection)).
            The article's <code>cropPixels</code>, written in plain <code>Double</code>, gives
            <b>\(article.map(describe) ?? "no pixels")</b>; CropKit gives <b>\(exact.map(describe) ?? "no pixels")</b>.
            The selection's right edge, 150.15 points, lies on the boundary after pixel 2002 (the display
            scale is 0.075 point per pixel). Divided by that scale in <code>Double</code> it comes out
            2002.0000000000002, and rounding outward (<code>ceil</code>) turns that hair into a whole column
            of pixels the person did not select. CropKit computes each edge exactly from the
            <code>Double</code> values as given and snaps an edge within 10<sup>&minus;6</sup> pixel of a
            boundary to it, so the edge stays at 2002.</p></div>
            <div class="figure">\(CropDiagram.svg(for: request, width: 360))</div>

            """
    }

    static let doubleTrap = (
        source: CGSize(width: 4000, height: 3000), viewport: CGSize(width: 300, height: 300),
        selection: CGRect(x: 0.15, y: 75, width: 150, height: 150)
    )
}

private func describe(_ rect: CGRect) -> String {
    "\(format(Double(rect.origin.x))),\(format(Double(rect.origin.y))),\(format(Double(rect.size.width))),\(format(Double(rect.size.height)))"
}

/// One scenario of the demo: a title and the mapping it shows.
package struct DemoCase: Sendable {
    /// What the case shows.
    package var title: String
    /// The numbers an app would have.
    package var request: CropRequest

    /// A case titled `title` for `request`.
    package init(title: String, request: CropRequest) {
        self.title = title
        self.request = request
    }
}

extension CropKitTool {
    /// The demo's cases: the article's scenario and one of each input category.
    package static var demoCases: [DemoCase] { DemoCommand.cases }

    /// Runs the demo on `cases` (the real ones by default) into `folder`,
    /// as `cropkit demo --output FOLDER` does; for tests, which run it on
    /// small images.
    ///
    /// - Returns: The exit code.
    package static func demo(
        _ cases: [DemoCase] = DemoCommand.cases, in folder: String, console: Console
    ) -> Int32 {
        defer { console.flush() }
        return DemoCommand.run(cases, in: folder, console: console)
    }

    /// What a second `cropkit demo` into `folder` does first: empties a
    /// folder the demo made (nil: ready) or refuses any other (the exit
    /// status, said on `console`).
    package static func prepareDemoFolder(_ folder: String, console: Console) -> Int32? {
        DemoCommand.prepare(folder, console: console)
    }
}
