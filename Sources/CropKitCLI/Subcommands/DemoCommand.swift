import CropGeometry
import Foundation

/// `cropkit demo`: the article's scenario end to end, on embedded numbers.
struct DemoCommand: Subcommand {
    static let name = "demo"
    static let summary = "run the article's scenario and the six input categories"
    static let usage = """
        Usage: cropkit demo

        Maps the article's scenario (a 4000x3000 photo aspect-fit in a 300x300 view,
        the centre selection) and one case from each of the six input categories,
        and shows a case where plain Double arithmetic (the article's code) is off
        by a pixel while CropKit is exact.
        """
    static let options: [OptionSpec] = []

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
        }
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
        console.out.write("CropKit demo: exact crop geometry\n\n")
        var allAsExpected = true
        for demoCase in Self.cases {
            console.out.write("\(demoCase.title)\n")
            let r = demoCase.request
            console.out.write(
                "  source \(format(r.sourceSize.width))x\(format(r.sourceSize.height)), view \(format(r.viewport.width))x\(format(r.viewport.height)), selection \(r.selection)\n"
            )
            let outcome = r.result()
            for line in MapCommand.describe(r, outcome).split(separator: "\n") {
                console.out.write("  \(line)\n")
            }
            let article = articleCropPixels(
                source: CGSize(width: r.sourceSize.width, height: r.sourceSize.height),
                viewport: CGSize(width: r.viewport.width, height: r.viewport.height),
                selection: CGRect(
                    x: r.selection.x, y: r.selection.y, width: r.selection.width,
                    height: r.selection.height))
            let exact = cropPixels(
                source: CGSize(width: r.sourceSize.width, height: r.sourceSize.height),
                viewport: CGSize(width: r.viewport.width, height: r.viewport.height),
                selection: CGRect(
                    x: r.selection.x, y: r.selection.y, width: r.selection.width,
                    height: r.selection.height))
            if article != exact { allAsExpected = false }
            console.out.write("\n")
        }
        // An edge exactly on a pixel boundary that Double cannot represent:
        // at 0.075 pt per pixel, 0.15 pt and 150.15 pt are pixels 2 and 2002.
        let tricky = Self.doubleTrap
        let article = articleCropPixels(
            source: tricky.source, viewport: tricky.viewport, selection: tricky.selection)
        let exact = cropPixels(
            source: tricky.source, viewport: tricky.viewport, selection: tricky.selection)
        console.out.write(
            """
            where plain Double arithmetic is wrong
              source \(Int(tricky.source.width))x\(Int(tricky.source.height)), view \(format(Double(tricky.viewport.width)))x\(format(Double(tricky.viewport.height))), selection \(describe(tricky.selection))
              the article's Double code: \(article.map(describe) ?? "no pixels")
              CropKit (exact):           \(exact.map(describe) ?? "no pixels")

            \(allAsExpected ? "On the six categories the article's code happens to agree;" : "The article's code differs on some categories above;")
            the last case shows the column that plain Double arithmetic adds.
            Next: 'cropkit map --help', 'cropkit replay --help'.

            """)
        return ExitCode.success
    }

    static let doubleTrap = (
        source: CGSize(width: 4000, height: 3000), viewport: CGSize(width: 300, height: 300),
        selection: CGRect(x: 0.15, y: 75, width: 150, height: 150)
    )
}

private func describe(_ rect: CGRect) -> String {
    "\(format(Double(rect.origin.x))),\(format(Double(rect.origin.y))),\(format(Double(rect.size.width))),\(format(Double(rect.size.height)))"
}
