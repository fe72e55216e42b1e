import CropGeometry
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
            short: "o")
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

    struct Case {
        var title: String
        var request: CropRequest
    }

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
        var records: [String] = []
        for (index, demoCase) in Self.cases.enumerated() {
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
                JSONValue.object(
                    CropRecord(
                        request: r, expected: expected,
                        extra: [.init("case", .string(demoCase.title))]
                    ).members
                ).text)
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
        try? Data((records.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: recordsPath))
        // Export and check every case through the replay machinery: fixtures
        // of each case's size, the real crop pipeline, the four checks.
        let replayOut = StringSink()
        let replayErr = StringSink()
        let status = CropKitTool.run(
            ["replay", recordsPath, "--export", exports, "--report", folder + "/report.html"],
            console: Console(out: replayOut, err: replayErr))
        try? Data(replayOut.text.utf8).write(to: URL(fileURLWithPath: folder + "/replayed.jsonl"))
        let summary = replayErr.text.split(separator: "\n").last.map(String.init) ?? "?"
        let trap = Self.doubleTrap
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
        return status == ExitCode.success ? ExitCode.success : ExitCode.failure
    }

    static let doubleTrap = (
        source: CGSize(width: 4000, height: 3000), viewport: CGSize(width: 300, height: 300),
        selection: CGRect(x: 0.15, y: 75, width: 150, height: 150)
    )
}

private func describe(_ rect: CGRect) -> String {
    "\(format(Double(rect.origin.x))),\(format(Double(rect.origin.y))),\(format(Double(rect.size.width))),\(format(Double(rect.size.height)))"
}
