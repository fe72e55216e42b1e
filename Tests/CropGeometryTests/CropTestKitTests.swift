import CropGeometry
import CropKitTestSupport
import CropRecords
import CropTestKit
import Foundation
import Testing

/// The test kit: its vectors agree with the exact reference, are
/// reproducible by seed and cover every category; it finds the known errors
/// of the article's plain-`Double` recipe and of two public croppers'
/// mappings ported here, and passes CropKit's own; the export checks tell a
/// right exporter from wrong ones.
@Suite(.announcesSkips) struct CropTestKitTests {
    /// The vector as the exact reference's case.
    static func referenceCase(_ vector: CropVector) -> MappingCase {
        let r = vector.request
        return MappingCase(
            sw: Int(r.sourceSize.width), sh: Int(r.sourceSize.height), vw: r.viewport.width,
            vh: r.viewport.height, x: r.selection.x, y: r.selection.y, w: r.selection.width,
            h: r.selection.height, mode: r.mode, imageScale: r.imageScale, z: r.zoom.scale,
            ox: r.zoom.offset.dx, oy: r.zoom.offset.dy, orientation: r.orientation)
    }

    static let everything = VectorOptions(
        count: 2400, seed: 11, modes: ContentMode.allCases, orientations: EXIFOrientation.allCases,
        zoom: true, companions: true, faces: true)

    @Test(arguments: [VectorOptions(count: 1100, seed: 5), everything])
    func vectorsAgreeWithTheExactReference(_ options: VectorOptions) throws {
        var checked = 0
        var refused = 0
        for vector in CropVectors.generate(options) {
            // The exact path (rationals, no fast path) agrees on every vector.
            let exact = try? vector.request.mapExactly().rect
            if exact != (try? vector.expected.get())?.rect {
                Issue.record("\(vector.jsonLine): the exact path says \(String(describing: exact))")
            }
            let expected: (Int, Int, Int, Int)?
            do {
                expected = try referenceMapping(Self.referenceCase(vector))
            } catch {
                continue  // beyond Int128: the full-image and boundary edges
            }
            checked += 1
            switch (expected, vector.expected) {
            case (nil, .failure): refused += 1
            case (let e?, .success(let result)):
                let r = result.rect
                if (r.x, r.y, r.maxX, r.maxY) != e {
                    Issue.record("\(vector.jsonLine): the reference says \(e)")
                }
            default:
                Issue.record(
                    "\(vector.jsonLine): the reference says \(String(describing: expected))")
            }
        }
        #expect(checked > options.count * 8 / 10, "\(checked) of \(options.count) checked")
        #expect(refused > 0 && refused < checked / 2)
    }

    @Test func theSameSeedGivesTheSameBytes() {
        let options = VectorOptions(count: 300, seed: 42, orientations: [.up, .right], zoom: true)
        let first = CropVectors.generate(options).map(\.jsonLine)
        #expect(first == CropVectors.generate(options).map(\.jsonLine))
        var other = options
        other.seed = 43
        #expect(first != CropVectors.generate(other).map(\.jsonLine))
        // Pinned: a change of the generator changes every app's vectors.
        #expect(
            CropVectors.generate(VectorOptions(count: 1, seed: 1))[0].jsonLine
                == #"{"source":{"width":7787,"height":3381},"viewport":{"width":599.8125,"height":943.9375},"selection":{"x":526.234375,"y":477.96875,"width":21.015625,"height":98.625},"mode":"aspectFit","expected":{"x":6831,"y":1768,"width":274,"height":1281},"category":"landscape"}"#
        )
    }

    @Test func everyCategoryIsThereAndBalanced() {
        let plain = CropVectors.generate(VectorOptions(count: 900))
        let all = CropVectors.generate(Self.everything)
        for (vectors, categories) in [(plain, 9), (all, VectorCategory.allCases.count)] {
            var counts: [VectorCategory: Int] = [:]
            for vector in vectors { counts[vector.category, default: 0] += 1 }
            #expect(counts.count == categories)
            #expect((counts.values.max() ?? 0) - (counts.values.min() ?? 0) <= 1)
        }
        #expect(plain.allSatisfy { $0.fitsArticleSignature })
        // Each category is what it says.
        for vector in all {
            let r = vector.request
            switch vector.category {
            case .paddingOnly:
                #expect((try? r.map()) == nil, "\(vector.jsonLine)")
            case .onePixel: #expect(r.sourceSize.width == 1 || r.sourceSize.height == 1)
            case .orientation: #expect(r.orientation != .up)
            case .zoomAndPan: #expect(r.zoom != .identity)
            case .companion: #expect(vector.companion != nil)
            case .faceBox: #expect(vector.face != nil && vector.companion == nil)
            case .extremeAspect:
                let (w, h) = (r.sourceSize.width, r.sourceSize.height)
                let (vw, vh) = (r.viewport.width, r.viewport.height)
                #expect(max(w / h, h / w) >= 100 || max(vw / vh, vh / vw) >= 15)
            default: #expect(vector.companion == nil && vector.face == nil)
            }
        }
        // Double-boundary vectors catch the article's recipe most of the time.
        let boundary = plain.filter { $0.category == .doubleBoundary }
        let caught = CropContractTest.run(boundary, article: articleCropPixels).failures.count
        #expect(caught * 2 > boundary.count, "\(caught) of \(boundary.count)")
    }

    /// The face-box category: each vector's expected face equals the face
    /// box cut to the crop by plain arithmetic here (Vision's bottom-left
    /// box to top-left pixels of the photo as seen, intersected with the
    /// crop's rect, back to the crop's bottom-left normalized box), in
    /// every orientation and mode; about a third land inside, cut and
    /// outside each; and the grader fails the usual bugs: a box left
    /// top-left, a box normalized to the photo, no box.
    @Test func faceBoxesAgreeWithTheArithmetic() throws {
        let vectors = CropVectors.generate(Self.everything).filter { $0.category == .faceBox }
        var (inside, cut, outside) = (0, 0, 0)
        for vector in vectors {
            guard case .success(let result) = vector.expected, let face = vector.face else {
                continue
            }
            let seen = result.orientedSize
            let (w, h) = (Double(seen.width), Double(seen.height))
            let r = result.rect
            let x0 = max(face.x * w, Double(r.x))
            let x1 = min((face.x + face.width) * w, Double(r.x + r.width))
            let y0 = max((1 - face.y - face.height) * h, Double(r.y))
            let y1 = min((1 - face.y) * h, Double(r.y + r.height))
            let expected = try #require(vector.expectedFace)
            guard x1 > x0, y1 > y0 else {
                #expect(expected == .outside, "\(vector.jsonLine)")
                outside += 1
                continue
            }
            let (cw, ch) = (Double(r.width), Double(r.height))
            let want = [
                (x0 - Double(r.x)) / cw, (Double(r.y + r.height) - y1) / ch, (x1 - x0) / cw,
                (y1 - y0) / ch,
            ]
            guard case .box(let box) = expected else {
                Issue.record("\(vector.jsonLine): outside, the arithmetic says \(want)")
                continue
            }
            let got = [box.x, box.y, box.width, box.height]
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1e-9 }, "\(vector.jsonLine)")
            let whole =
                face.x * w >= Double(r.x) && (face.x + face.width) * w <= Double(r.x + r.width)
                && (1 - face.y - face.height) * h >= Double(r.y)
                && (1 - face.y) * h <= Double(r.y + r.height)
            if whole { inside += 1 } else { cut += 1 }
        }
        #expect(
            inside * 5 > vectors.count && cut * 5 > vectors.count && outside * 10 > vectors.count)
        // The grader: the contract's answer passes; the usual bugs fail.
        let records = vectors.prefix(60).map(\.record)
        var failed = (flipped: 0, photo: 0, missing: 0)
        for record in records {
            guard case .mapped(.success(let result)) = record.answer(),
                case .object(let rect) = result.json
            else { continue }
            func graded(_ face: JSONValue?) throws -> GradedAnswer {
                guard case .object(var members) = record.json else {
                    throw CropRecordError(description: "")
                }
                let answer = rect + (face.map { [JSONValue.Member("face", $0)] } ?? [])
                members.append(.init("result", .object(answer)))
                return try CropGrader.grade(CropRecord(json: .object(members)))
            }
            let box = record.faceBox(result)
            #expect(try graded(FaceAnswer(box).json).passed, "\(record.json.text)")
            if try !graded(nil).passed { failed.missing += 1 }
            guard let box, let face = record.face else { continue }
            // Left top-left: y measured from the crop's top.
            let flipped = FaceAnswer.box(
                Rect(x: box.x, y: 1 - box.y - box.height, width: box.width, height: box.height))
            if try !graded(flipped.json).passed { failed.flipped += 1 }
            // Normalized to the photo, not the crop.
            let photo = FaceAnswer.box(
                Rect(x: face.x, y: face.y, width: face.width, height: face.height))
            if try !graded(photo.json).passed { failed.photo += 1 }
        }
        #expect(failed.missing > 30 && failed.flipped > 15 && failed.photo > 15, "\(failed)")
    }

    @Test func theKitFindsTheArticlesErrorsAndPassesCropKit() throws {
        let vectors = CropVectors.generate(VectorOptions(count: 1000, seed: 2026))
        let ours = CropContractTest.run(vectors, article: cropPixels)
        #expect(ours.passed, "\(ours.failureMessage() ?? "")")
        #expect(ours.skipped == 0)
        let article = CropContractTest.run(vectors, article: articleCropPixels)
        #expect(!article.passed)
        let failing = Set(article.failures.map(\.vector.category))
        #expect(failing.contains(.doubleBoundary))
        // Each failure is really a failure, and shrinks to one that is too.
        for failure in article.failures + article.shrunk {
            let got = articleCropPixels(
                source: failure.vector.request.sourceSize.cgSize,
                viewport: failure.vector.request.viewport.cgSize,
                selection: failure.vector.request.selection.cgRect)
            let want = try? failure.vector.request.map().rect
            #expect(
                got.map { [Int($0.minX), Int($0.minY), Int($0.width), Int($0.height)] }
                    != want.map { [$0.x, $0.y, $0.width, $0.height] })
        }
        #expect(article.shrunk.count == failing.count)
        // Its failure lines replay: the expected member is the contract's.
        for line in article.failureMessage()!.split(separator: "\n") where line.hasPrefix("{") {
            let record = try CropRecord(jsonLine: String(line))
            #expect(record.mismatches(record.answer()).isEmpty)
        }
        // A request-typed function: CropKit's own mapping, every mode,
        // orientation and zoom.
        let all = CropContractTest.run(CropVectors.generate(Self.everything)) { try? $0.map().rect }
        #expect(all.passed && all.skipped == 0)
    }

    /// What the kit says of two public croppers' mappings, ported to the
    /// article's signature.
    @Test func portedCroppersAreGraded() {
        let vectors = CropVectors.generate(VectorOptions(count: 1100, seed: 9))
        let uikit = CropContractTest.run(vectors, article: PortedCroppers.uikitStyle)
        let web = CropContractTest.run(vectors, article: PortedCroppers.cropperJSRounded)
        let failing: (ContractReport) -> Set<VectorCategory> = {
            Set($0.failures.map(\.vector.category))
        }
        // The UIKit-style cropper floors the origin and ceils the size
        // separately: it misses the last pixel of a fractional selection.
        #expect(failing(uikit).contains(.fractionalEdges))
        // Cropper.js's rounded getData rounds to nearest and does not clip:
        // a selection past an edge or in the padding comes back outside the
        // image, and fractional edges lose coverage.
        #expect(failing(web).isSuperset(of: [.pastAnEdge, .paddingOnly, .fractionalEdges]))
        #expect(!uikit.passed && !web.passed)
    }

    @Test func exportChecksTellRightFromWrong() {
        // Right: reads each pixel as seen through the orientation.
        let right: CropExportTest.Exporter = { stored, orientation, rect in
            PortedCroppers.export(stored, orientation, rect, applyOrientation: true, inset: 0)
        }
        #expect(CropExportTest.run(right).allSatisfy { $0.passed })
        let unturned = CropExportTest.run { stored, orientation, rect in
            PortedCroppers.export(stored, orientation, rect, applyOrientation: false, inset: 0)
        }
        #expect(unturned.contains { $0.check == "coordinates" && !$0.passed })
        #expect(
            unturned.filter { !$0.passed }.allSatisfy { !$0.fixture.contains("orientation 1,") })
        let short = CropExportTest.run { stored, orientation, rect in
            PortedCroppers.export(stored, orientation, rect, applyOrientation: true, inset: 1)
        }
        #expect(short.contains { $0.check == "size" && !$0.passed })
        // An opaque export with one transparent pixel inside, not at the
        // border: the opacity check holds every pixel to the fixture's.
        let holed = CropExportTest.run { stored, orientation, rect in
            var image = PortedCroppers.export(
                stored, orientation, rect, applyOrientation: true, inset: 0)
            if image.width > 4 && image.height > 4 {
                image.pixels[(3 * image.width + 2) * 4 + 3] = 0
            }
            return image
        }
        #expect(holed.contains { $0.check == "no transparency" && !$0.passed })
        #expect(
            Set(holed.map(\.check)) == ["size", "corner markers", "no transparency", "coordinates"])
    }
}

/// Two public croppers' mappings, ported to the article's signature (image
/// size, view size, selection; aspect fit, centred) for the kit to grade.
enum PortedCroppers {
    /// The view's aspect-fit display rect and its points per pixel.
    static func fit(_ image: CGSize, _ view: CGSize) -> (CGRect, Double) {
        let scale = min(view.width / image.width, view.height / image.height)
        let size = CGSize(width: image.width * scale, height: image.height * scale)
        return (
            CGRect(
                x: (view.width - size.width) / 2, y: (view.height - size.height) / 2,
                width: size.width, height: size.height), scale
        )
    }

    /// In the manner of TOCropViewController's `imageCropFrame`: the origin
    /// is the offset into the content, floored, then scaled and floored;
    /// the size is the crop box's, scaled and ceiled on its own, capped at
    /// the image.
    static func uikitStyle(_ image: CGSize, _ view: CGSize, _ selection: CGRect) -> CGRect? {
        let (display, scale) = fit(image, view)
        let box = selection.intersection(display)
        guard !box.isNull, box.width > 0, box.height > 0 else { return nil }
        let x = max(0, ((box.minX - display.minX).rounded(.down) / scale).rounded(.down))
        let y = max(0, ((box.minY - display.minY).rounded(.down) / scale).rounded(.down))
        let width = min(image.width, (box.width / scale).rounded(.up))
        let height = min(image.height, (box.height / scale).rounded(.up))
        return CGRect(x: x, y: y, width: width, height: height)
    }

    /// In the manner of Cropper.js's `getData(true)`: the crop box minus
    /// the canvas, divided by the ratio, the top-left corner and the
    /// bottom-right corner rounded to nearest; nothing clipped to the image.
    static func cropperJSRounded(_ image: CGSize, _ view: CGSize, _ selection: CGRect) -> CGRect? {
        let (display, ratio) = fit(image, view)
        let x = (selection.minX - display.minX) / ratio
        let y = (selection.minY - display.minY) / ratio
        let right = ((selection.maxX - display.minX) / ratio).rounded()
        let bottom = ((selection.maxY - display.minY) / ratio).rounded()
        let left = x.rounded()
        let top = y.rounded()
        return CGRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// An exporter: `rect` of the image as seen, read through the
    /// orientation (or not), shrunk by `inset` on every side.
    static func export(
        _ stored: RGBAImage, _ orientation: EXIFOrientation, _ rect: PixelRect<ImagePixels>,
        applyOrientation: Bool, inset: Int
    ) -> RGBAImage {
        let width = max(0, rect.width - 2 * inset)
        let height = max(0, rect.height - 2 * inset)
        let size = PixelSize<StoredPixels>(width: stored.width, height: stored.height)
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = (rect.x + inset + x, rect.y + inset + y)
                if applyOrientation {
                    let at = orientation.storedRect(
                        PixelRect(x: sx, y: sy, width: 1, height: 1), storedSize: size)
                    pixels += stored.pixel(at.x, at.y)
                } else {
                    let inside = sx < stored.width && sy < stored.height
                    pixels += inside ? stored.pixel(sx, sy) : [0, 0, 0, 0]
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
