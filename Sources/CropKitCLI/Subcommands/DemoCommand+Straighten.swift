import CropGeometry
import CropImaging
import CropTestKit
import Foundation

extension DemoCommand {
    /// The straightened case: the demo's phone photo (stored sideways, EXIF
    /// orientation 6) shown in a 300×400 view and straightened by 3.5°.
    /// The whole view turned needs fill at the corners; the crop screen's
    /// shrink to the largest rect inside (as the Photos app does) needs
    /// none. Both are exported through the real pipeline, and the same crops
    /// of a fixture that holds its own coordinates are checked pixel by
    /// pixel. Passes when every check holds and the inside crop is opaque.
    static func straightenCase(number: String, in folder: String, console: Console)
        -> (html: String, summary: String, passed: Bool)
    {
        let title = "a photo straightened by 3.5 degrees (EXIF orientation 6), shrunk inside"
        console.out.write("\(number) \(title)\n")
        console.flush()
        do {
            let photoPath = folder + "/photo.jpg"
            if !FileManager.default.fileExists(atPath: photoPath) {
                try AtomicFile.write(
                    try DemoPhoto.jpeg(width: 1024, height: 768, orientation: 6), to: photoPath,
                    replacing: true)
            }
            let source = try ImageSource.open(path: photoPath)
            var session = CropSession(
                source: .init(
                    identity: "photo", size: PixelSize(width: 1024, height: 768),
                    orientation: .right),
                viewport: Size(width: 300, height: 400))
            try session.select(Rect(x: 0, y: 0, width: 300, height: 400))
            let whole = session.request(for: Rect(x: 0, y: 0, width: 300, height: 400))
            try session.straighten(to: 3.5, aspect: AspectRatio(width: 3, height: 4))
            guard let inside = session.selection else { throw CropRejection.noImagePixels }
            var outputs: [(name: String, request: CropRequest, plan: CropPlan)] = []
            for (name, selection) in [
                ("straightened-whole.png", whole.selection),
                ("straightened-inside.png", inside.rect),
            ] {
                var request = whole.with(selection: selection)
                request.angle = 3.5
                var job = CropJob(region: .view(request, aspect: nil))
                job.resampling = CropJob.Resampling(angle: 3.5)
                let plan = try job.plan(for: source)
                _ = try plan.write(to: folder + "/" + name, replacing: true)
                outputs.append((name, request, plan))
            }
            let verifier = try TurnedExportVerifier(
                sourceSize: PixelSize(width: 1024, height: 768))
            var checks: [ExportCheck] = []
            for output in outputs {
                checks += try verifier.check(output.request, size: nil)?.checks ?? []
            }
            let insideImage = try PNGDecoder.decode(path: folder + "/straightened-inside.png")
            let wholeImage = try PNGDecoder.decode(path: folder + "/straightened-whole.png")
            let passed =
                checks.count == 6 && checks.allSatisfy(\.passed) && insideImage.colorType == .rgb
                && wholeImage.colorType == .rgba
            let crops = outputs.map { output in
                "\(output.name): output rect \(output.plan.resampling?.crop.rect.description ?? "?"), read \(output.plan.result.rect)"
            }
            console.out.write(
                "   view 300x400, the whole view turned 3.5 deg clockwise; the Photos-style shrink keeps 3:4 inside\n"
            )
            for line in crops { console.out.write("   -> \(line)\n") }
            for check in checks {
                console.out.write(
                    "   \(check.passed ? "ok" : "FAILED") \(check.name): \(check.detail)\n")
            }
            console.flush()
            let pictures = outputs.map { output in
                let data = FileManager.default.contents(atPath: folder + "/" + output.name)
                return
                    "<figure><img alt=\"\(output.name)\" src=\"data:image/png;base64,\(data?.base64EncodedString() ?? "")\"><figcaption>\(output.name): output rect \(output.plan.resampling?.crop.rect.description ?? "")</figcaption></figure>"
            }.joined()
            let html = """
                <h2 id="straighten">Straightened by 3.5&deg;, and shrunk so no fill is needed</h2>
                <div class="intro"><p>The phone photo above (stored sideways, EXIF orientation 6), shown in a
                300&times;400 view and turned 3.5&deg; clockwise about the centre of its display rect. The
                selection stays upright in the view; moved into the turned pixel frame it is the output rect,
                and each output pixel samples the photo at its own position <i>q</i> = R(&minus;&theta;)(<i>p</i>
                &minus; <i>c</i>) + <i>c</i> (bilinear). Left: the whole view, whose corners lie outside the
                turned photo and are transparent fill. Right: the largest 3:4 rect inside the turned photo, as
                the Photos app shrinks the crop while you straighten: no fill at all. The same crops of a fixture
                whose pixels hold their own coordinates read back the positions the contract gives, and their
                fill lies exactly where those positions leave the photo.</p></div>
                \(straightenSVG(whole, inside: inside.rect))
                <div class="figure">\(pictures)</div>

                """
            return (
                html,
                "\(checks.filter(\.passed).count)/\(checks.count) checks, the inside crop \(insideImage.colorType == .rgb ? "has no fill" : "HAS FILL")",
                passed
            )
        } catch {
            console.err.write("error: the straightened case: \(field: error)\n")
            return ("", "failed: \(error)", false)
        }
    }

    /// The variants case: three crops of the phone photo for a post (1:1,
    /// 4:5, 16:9, each the largest centred rect of its ratio) at 270 px
    /// wide, written from one decode. Passes when each has its size.
    static func variantsCase(number: String, in folder: String, console: Console)
        -> (html: String, summary: String, passed: Bool)
    {
        let title = "three variants of one photo (1:1, 4:5, 16:9 at 270 wide) from one decode"
        console.out.write("\(number) \(title)\n")
        console.flush()
        do {
            let source = try ImageSource.open(path: folder + "/photo.jpg")
            let ratios = [(1, 1), (4, 5), (16, 9)]
            let plans = try ratios.map { ratio throws in
                var job = CropJob(
                    region: .largestInside(
                        aspect: AspectRatio(width: ratio.0, height: ratio.1).map { .ratio($0) }),
                    format: .jpeg(JPEGEncoder()))
                job.resampling = CropJob.Resampling(size: .width(270))
                return try job.plan(for: source)
            }
            let paths = ratios.map { folder + "/variant-\($0.0)x\($0.1).jpg" }
            let reports = try CropPlan.writeVariants(plans, to: paths, replacing: true)
            let sizes = reports.map { "\($0.size.width)x\($0.size.height)" }
            let expected = ["270x270", "270x338", "270x152"]
            let passed = sizes == expected
            console.out.write(
                "   -> \(zip(paths, sizes).map { "\(($0.0 as NSString).lastPathComponent) \($0.1)" }.joined(separator: ", "))\n"
            )
            console.flush()
            let pictures = zip(paths, sizes).map { path, size in
                let data = FileManager.default.contents(atPath: path)
                return
                    "<figure><img alt=\"\(size)\" src=\"data:image/jpeg;base64,\(data?.base64EncodedString() ?? "")\"><figcaption>\((path as NSString).lastPathComponent): \(size)</figcaption></figure>"
            }.joined()
            let html = """
                <h2 id="variants">Three variants of one photo, one decode</h2>
                <div class="intro"><p>A post needs the same photo at 1:1, 4:5 and 16:9, each 270 pixels wide.
                Each is the largest centred rect of its ratio in the photo as seen, reduced with Lanczos-3
                (widened by the reduction); the photo is decoded once, for the union of the three regions, and
                each variant is rendered and encoded from it.</p></div>
                <div class="figure">\(pictures)</div>

                """
            return (html, sizes.joined(separator: ", "), passed)
        } catch {
            console.err.write("error: the variants case: \(field: error)\n")
            return ("", "failed: \(error)", false)
        }
    }

    /// The view, the turned photo's outline, the whole-view selection and
    /// the largest rect inside, as SVG.
    static func straightenSVG(_ request: CropRequest, inside: Rect<ViewPoints>) -> String {
        guard let display = try? request.displayRect() else { return "" }
        let (cx, cy) = (display.x + display.width / 2, display.y + display.height / 2)
        let (c, s) = StraightenedFrame.cosineAndSine(degrees: 3.5)
        let corners = [
            (display.x, display.y), (display.maxX, display.y), (display.maxX, display.maxY),
            (display.x, display.maxY),
        ].map { x, y in
            let (dx, dy) = (x - cx, y - cy)
            return String(format: "%.1f,%.1f", cx + c * dx - s * dy + 20, cy + s * dx + c * dy + 20)
        }.joined(separator: " ")
        let vw = request.viewport.width
        let vh = request.viewport.height
        // The legend below the view, a swatch a line: one line across
        // would be wider than the drawing and clipped.
        let legend = [
            ("fill=\"#eee\" stroke=\"#888\"", "the view"),
            (
                "fill=\"#9cf\" fill-opacity=\"0.5\" stroke=\"#06c\"",
                "the photo, turned 3.5&#176; clockwise"
            ),
            ("fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"", "the largest 3:4 rect inside it"),
        ].enumerated().map { index, entry in
            let y = Int(vh) + 34 + index * 18
            return "<rect x=\"20\" y=\"\(y)\" width=\"12\" height=\"12\" \(entry.0)/>"
                + "<text x=\"38\" y=\"\(y + 10)\" font-size=\"11\" font-family=\"sans-serif\">\(entry.1)</text>"
        }.joined(separator: "\n")
        let height = Int(vh) + 34 + 3 * 18
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(vw) + 40)" height="\(height)" viewBox="0 0 \(Int(vw) + 40) \(height)">
            <rect x="20" y="20" width="\(vw)" height="\(vh)" fill="#eee" stroke="#888"/>
            <polygon points="\(corners)" fill="#9cf" fill-opacity="0.5" stroke="#06c"/>
            <rect x="\(inside.x + 20)" y="\(inside.y + 20)" width="\(inside.width)" height="\(inside.height)" fill="none" stroke="#c00" stroke-width="2"/>
            \(legend)
            </svg>
            """
    }
}
