// Times CropKit's exact mapping against the article's plain-Double code on
// the same inputs, in one run, and prints the ratio. Build in release:
//   swift run -c release MappingBenchmark [cases] [rounds]
import CropGeometry
import CropRecords
import CropTestKit
import Foundation

/// The kit's SplitMix64, with uniform doubles.
struct Generator {
    var random: SeededRandom
    init(state: UInt64) { random = SeededRandom(seed: state) }
    mutating func next() -> UInt64 { random.next() }
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) * 0x1p-53 * (range.upperBound - range.lowerBound)
    }
}

struct Input {
    var source: CGSize
    var viewport: CGSize
    var selection: CGRect
}

let arguments = CommandLine.arguments

// `--records N`: print N replayable records (JSON Lines) and stop, for timing
// `cropkit replay`.
if arguments.count > 2, arguments[1] == "--records", let count = Int(arguments[2]) {
    var g = Generator(state: 7)
    let modes = ContentMode.allCases
    var out = ""
    for _ in 0..<count {
        let vw = Double(100 + g.next() % 900)
        let vh = Double(100 + g.next() % 900)
        let request = CropRequest(
            sourceSize: Size(
                width: Double(1 + g.next() % 8000), height: Double(1 + g.next() % 8000)),
            viewport: Size(width: vw, height: vh),
            selection: Rect(
                x: (g.uniform(-20...vw) * 100).rounded() / 100,
                y: (g.uniform(-20...vh) * 100).rounded() / 100,
                width: (g.uniform(0.5...vw) * 100).rounded() / 100,
                height: (g.uniform(0.5...vh) * 100).rounded() / 100),
            mode: modes[Int(g.next() % UInt64(modes.count))],
            zoom: g.next() % 3 == 0
                ? Zoom(scale: 2.5, offset: Vector(dx: 40, dy: -12.5)) : .identity,
            orientation: EXIFOrientation(rawValue: Int(1 + g.next() % 8))!)
        let expected: CropRecord.Expectation? = (try? request.map()).map {
            .rect(
                x: Double($0.rect.x), y: Double($0.rect.y), width: Double($0.rect.width),
                height: Double($0.rect.height), stored: nil)
        }
        out += CropRecord(request: request, expected: expected ?? .rejected).json.text + "\n"
        if out.utf8.count > 1 << 20 {
            print(out, terminator: "")
            out = ""
        }
    }
    print(out, terminator: "")
    exit(0)
}

let caseCount = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 7 : 7

// Phone photos in phone-sized views; selections anywhere, with two decimals
// as a gesture recogniser reports them, a quarter of them touching the padding.
var generator = Generator(state: 2026)
let photoSizes: [(Double, Double)] = [
    (4032, 3024), (3024, 4032), (4000, 3000), (1920, 1080), (1080, 1920), (6000, 4000),
]
let views: [(Double, Double)] = [(390, 844), (844, 390), (300, 300), (428, 926), (768, 1024)]
var inputs: [Input] = []
inputs.reserveCapacity(caseCount)
for _ in 0..<caseCount {
    let (sw, sh) = photoSizes[Int(generator.next() % UInt64(photoSizes.count))]
    let (vw, vh) = views[Int(generator.next() % UInt64(views.count))]
    let x = (generator.uniform(-20...vw) * 100).rounded() / 100
    let y = (generator.uniform(-20...vh) * 100).rounded() / 100
    let w = (generator.uniform(1...vw) * 100).rounded() / 100
    let h = (generator.uniform(1...vh) * 100).rounded() / 100
    inputs.append(
        Input(
            source: CGSize(width: sw, height: sh), viewport: CGSize(width: vw, height: vh),
            selection: CGRect(x: x, y: y, width: w, height: h)))
}

@inline(never)
func runArticle(_ inputs: [Input]) -> Double {
    var checksum = 0.0
    for input in inputs {
        if let r = articleCropPixels(
            source: input.source, viewport: input.viewport, selection: input.selection)
        {
            checksum += r.origin.x + r.size.width
        }
    }
    return checksum
}

@inline(never)
func runCropKit(_ inputs: [Input]) -> Double {
    var checksum = 0.0
    for input in inputs {
        if let r = cropPixels(
            source: input.source, viewport: input.viewport, selection: input.selection)
        {
            checksum += r.origin.x + r.size.width
        }
    }
    return checksum
}

/// The general mapping (zoom, orientation, every mode) on the same inputs,
/// and the exact path alone: what the fast path buys a replay or a batch.
let requests = inputs.map { input in
    CropRequest(
        sourceSize: Size(width: Double(input.source.width), height: Double(input.source.height)),
        viewport: Size(width: Double(input.viewport.width), height: Double(input.viewport.height)),
        selection: Rect(
            x: Double(input.selection.origin.x), y: Double(input.selection.origin.y),
            width: Double(input.selection.size.width), height: Double(input.selection.size.height)),
        mode: .aspectFill, zoom: Zoom(scale: 1.5, offset: Vector(dx: 20, dy: 10)),
        orientation: .right)
}

@inline(never)
func runMap(_ requests: [CropRequest]) -> Double {
    var checksum = 0.0
    for request in requests {
        if let r = try? request.map() { checksum += Double(r.rect.x + r.rect.width) }
    }
    return checksum
}

@inline(never)
func runExact(_ requests: ArraySlice<CropRequest>) -> Double {
    var checksum = 0.0
    for request in requests {
        if let r = try? request.mapExactly() { checksum += Double(r.rect.x + r.rect.width) }
    }
    return checksum
}

func seconds(_ body: () -> Double) -> (Double, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let checksum = body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, checksum)
}

var articleTimes: [Double] = []
var cropKitTimes: [Double] = []
var mapTimes: [Double] = []
var exactTimes: [Double] = []
let exactCount = min(caseCount, 20_000)
var checksums: (Double, Double) = (0, 0)
for _ in 0..<rounds {
    // Alternate so that neither side always runs on a warmer machine.
    let a = seconds { runArticle(inputs) }
    let c = seconds { runCropKit(inputs) }
    articleTimes.append(a.0)
    cropKitTimes.append(c.0)
    mapTimes.append(seconds { runMap(requests) }.0)
    exactTimes.append(seconds { runExact(requests.prefix(exactCount)) }.0)
    checksums = (a.1, c.1)
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
var disagreements = 0
for input in inputs.prefix(200_000) {
    if articleCropPixels(source: input.source, viewport: input.viewport, selection: input.selection)
        != cropPixels(source: input.source, viewport: input.viewport, selection: input.selection)
    {
        disagreements += 1
    }
}
let article = median(articleTimes)
let cropKit = median(cropKitTimes)
print("| mapping | ns per call (median of \(rounds) rounds over \(caseCount) inputs) |")
print("| --- | --- |")
print(
    String(
        format: "| article's cropPixels (plain Double) | %.1f |", article / Double(caseCount) * 1e9)
)
print(String(format: "| CropKit cropPixels (exact) | %.1f |", cropKit / Double(caseCount) * 1e9))
print(
    String(
        format: "| CropRequest.map() (aspectFill, zoom, orientation 6) | %.1f |",
        median(mapTimes) / Double(caseCount) * 1e9))
print(
    String(
        format: "| the same, exact path alone (first %d inputs) | %.1f |", exactCount,
        median(exactTimes) / Double(exactCount) * 1e9))
print(String(format: "\nratio CropKit / article: %.2f", cropKit / article))
print(
    "answers that differ (first 200,000 inputs): \(disagreements) (\(String(format: "%.2f", Double(disagreements) / 2000))%)"
)
print("checksums: \(checksums.0) \(checksums.1)")
