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
        through the same code as 'cropkit crop', and the four export checks; then
        one HTML report, and a case where plain Double arithmetic (the article's
        code) adds a pixel while CropKit is exact. Everything goes into DIR
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
        return [
            Case(
                title: "the article's scenario (centre selection)",
                request: request((4000, 3000), (300, 300), (75, 75, 150, 150))),
            Case(
                title: "landscape photo, letterboxed",
                request: request((4032, 3024), (390, 844), (20, 300, 200, 150))),
            Case(
                title: "portrait photo, pillarboxed",
                request: request((3024, 4032), (844, 390), (300, 20, 150, 200))),
            Case(
                title: "full selection (whole view)",
                request: request((4000, 3000), (300, 300), (0, 0, 300, 300))),
            Case(
                title: "padding only (no pixels)",
                request: request((4000, 3000), (300, 300), (10, 5, 100, 30))),
            Case(
                title: "beyond an edge (clipped)",
                request: request((4000, 3000), (300, 300), (250, 200, 100, 100))),
            Case(
                title: "fractional edges (rounded outward)",
                request: request((4000, 3000), (300, 300), (10.01, 40.3, 33.33, 20.07))),
        ]
    }()

    func run(console: Console) -> Int32 {
        Self.run(Self.cases, in: folder, console: console)
    }

    /// The demo of `cases` into `folder`: the library calls behind it, with
    /// no command line in between (a test runs it on small cases).
    static func run(_ cases: [Case], in folder: String, console: Console) -> Int32 {
        let files = FileManager.default
        let diagrams = folder + "/diagrams"
        let exports = folder + "/exports"
        // Replace only a folder this command made.
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: folder, isDirectory: &isFolder) {
            let contents = (try? files.contentsOfDirectory(atPath: folder)) ?? []
            guard isFolder.boolValue, contents.isEmpty || contents.contains(Self.marker) else {
                console.err.write(
                    "error: '\(folder)' exists and is not a CropKit demo folder; choose another --output\n"
                )
                return ExitCode.usage
            }
            for name in contents { try? files.removeItem(atPath: folder + "/" + name) }
        }
        do {
            for path in [folder, diagrams, exports] {
                try files.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            try Data("made by cropkit demo; a second run replaces this folder\n".utf8).write(
                to: URL(fileURLWithPath: folder + "/" + Self.marker))
        } catch {
            console.err.write("error: cannot write '\(folder)': \(error.localizedDescription)\n")
            return ExitCode.badInput
        }
        console.out.write(
            "CropKit demo: exact crops of what a person selected, checked pixel by pixel\n\n")
        var records: [CropRecord] = []
        for (index, demoCase) in cases.enumerated() {
            let r = demoCase.request
            let outcome = r.result()
            let number = String(format: "%02d", index + 1)
            let diagram = "\(diagrams)/\(number).svg"
            try? Data(CropDiagram.svg(for: r).utf8).write(to: URL(fileURLWithPath: diagram))
            let expected: CropRecord.Expectation =
                switch outcome {
                case .success(let result):
                    .rect(
                        x: Double(result.rect.x), y: Double(result.rect.y),
                        width: Double(result.rect.width),
                        height: Double(result.rect.height), stored: nil)
                case .failure: .rejected
                }
            records.append(
                CropRecord(
                    request: r, expected: expected, extra: [.init("case", .string(demoCase.title))])
            )
            console.out.write("\(number) \(demoCase.title)\n")
            console.out.write(
                "   source \(format(r.sourceSize.width))x\(format(r.sourceSize.height)), view \(format(r.viewport.width))x\(format(r.viewport.height)), selection \(r.selection)\n"
            )
            switch outcome {
            case .success(let result):
                console.out.write("   -> pixels \(result.rect) (x,y,width,height), exact\n")
            case .failure(let rejection):
                console.out.write("   -> no pixels (\(rejection.code)): nothing to export\n")
            }
        }
        let recordsPath = folder + "/records.jsonl"
        try? Data((records.map(\.json.text).joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: recordsPath))
        // Export and check every case as `cropkit replay --export` does:
        // fixtures of each case's size, the real crop pipeline, the checks.
        var replayer = RecordReplayer(exportFolder: exports, defaultOrientation: nil)
        var report = ReplayReport()
        var replayed: [String] = []
        var (passed, failed) = (0, 0)
        for (index, record) in records.enumerated() {
            let outcome = replayer.replay(record, line: index + 1)
            if outcome.passed { passed += 1 } else { failed += 1 }
            replayed.append(outcome.line.text)
            report.add(
                RecordReplayer.reportRow(outcome, line: index + 1, text: record.json.text))
        }
        try? Data((replayed.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: folder + "/replayed.jsonl"))
        try? Data(
            report.html(title: "CropKit demo", passed: passed, failed: failed).utf8
        ).write(to: URL(fileURLWithPath: folder + "/report.html"))
        let summary = "\(passed) passed, \(failed) failed"
        let trap = doubleTrap
        let article = articleCropPixels(
            source: trap.source, viewport: trap.viewport, selection: trap.selection)
        let exact = cropPixels(
            source: trap.source, viewport: trap.viewport, selection: trap.selection)
        console.out.write(
            """

            What it proved
              exports and checks: \(summary) (size equals the mapping, markers only where
                the crop overlaps them, no transparent pixel, every pixel the right one)
              where plain Double arithmetic is wrong: source 4000x3000, view 300x300,
                selection \(describe(trap.selection))
                the article's Double code: \(article.map(describe) ?? "no pixels")
                CropKit (exact):           \(exact.map(describe) ?? "no pixels")

            Where to look (\(folder)/)
              report.html      every case: numbers, verdict, diagram, exported crop
              diagrams/*.svg   the view, the padding, the selection and the pixels
              exports/*.png    each crop, cut from a fixture of the photo's size
              records.jsonl    replayable records: cropkit replay \(recordsPath)

            """)
        return failed == 0 ? ExitCode.success : ExitCode.failure
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
}
