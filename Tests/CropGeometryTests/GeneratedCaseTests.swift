import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// Properties over generated inputs, against the exact reference in
/// ExactReference.swift (Int128 rationals on multiples of 1/64).
@Suite(.announcesSkips) struct GeneratedCaseTests {
    static let caseCount = 100_000

    @Test func agreesWithExactReferenceOnGeneratedCases() throws {
        var generator = SeededGenerator(seed: 0xC409_2026)
        var checked = 0
        var rejected = 0
        var overflowed = 0
        var exactPathCases = 0
        for _ in 0..<Self.caseCount {
            let c = MappingCase.random(using: &generator)
            let expected: (Int, Int, Int, Int)?
            do {
                expected = try referenceMapping(c)
            } catch {
                overflowed += 1
                continue
            }
            checked += 1
            let request = c.request
            if !request.isDecidedByFastPath { exactPathCases += 1 }
            let outcome = request.result()
            guard let expected else {
                rejected += 1
                guard case .failure(let rejection) = outcome else {
                    Issue.record("expected rejection for \(c), got \(outcome)")
                    continue
                }
                if rejection != .noImagePixels { Issue.record("\(c): rejected \(rejection)") }
                continue
            }
            guard case .success(let result) = outcome else {
                Issue.record("expected \(expected) for \(c), got \(outcome)")
                continue
            }
            // The rect, positive and inside the image, and the stored rect
            // holding the same pixels. Checked as one condition and recorded
            // when it fails: a passing #expect costs more than the mapping
            // in a debug build, and this loop runs 100,000 times.
            let r = result.rect
            let s = referenceStoredRect(c, expected)
            let stored = result.stored
            let holds =
                (r.x, r.y, r.maxX, r.maxY) == expected && r.width > 0 && r.height > 0
                && r.isInside(result.orientedSize) && stored.isInside(result.sourceSize)
                && (stored.x, stored.y, stored.maxX, stored.maxY) == s
            if !holds {
                Issue.record("\(c): got \(r), stored \(stored); expected \(expected), stored \(s)")
            }
        }
        // The generator must exercise what it claims to: most cases fit Int128,
        // both outcomes occur, and some decisions need the exact path.
        #expect(overflowed < Self.caseCount / 100)
        #expect(rejected > Self.caseCount / 50)
        #expect(checked - rejected > Self.caseCount / 2)
        #expect(exactPathCases > 20)
        print(
            "generated: \(Self.caseCount), checked: \(checked), rejected: \(rejected),"
                + " too large for Int128: \(overflowed), decided by the exact path: \(exactPathCases)"
        )
    }

    /// The exact path on every case, not only those the fast path leaves
    /// undecided: 6,000 cases (a debug build's exact path takes 0.6 ms a
    /// case; 20,000 took 13 s of the suite's 3 minutes).
    @Test func exactPathAgreesWithReferenceOnGeneratedCases() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<6_000 {
            let c = MappingCase.random(using: &generator)
            let expected: (Int, Int, Int, Int)?
            do { expected = try referenceMapping(c) } catch { continue }
            let exact = try? c.request.mapExactly()
            let got = exact.map { [$0.rect.x, $0.rect.y, $0.rect.maxX, $0.rect.maxY] }
            let want = expected.map { [$0.0, $0.1, $0.2, $0.3] }
            if got != want {
                Issue.record(
                    "\(c): got \(String(describing: got)), expected \(String(describing: want))")
            }
        }
    }
}

/// `cropPixels` has its own fast path for the article's case; it must agree
/// with the reference as `CropRequest.map()` does.
@Suite(.announcesSkips) struct CropPixelsAgreementTests {
    @Test func cropPixelsAgreesWithTheReference() throws {
        var generator = SeededGenerator(seed: 0xA871C1E)
        var checked = 0
        for _ in 0..<100_000 {
            var c = MappingCase.random(using: &generator)
            (c.mode, c.z, c.ox, c.oy, c.orientation) = (.aspectFit, 1, 0, 0, .up)
            let expected: (Int, Int, Int, Int)?
            do { expected = try referenceMapping(c) } catch { continue }
            checked += 1
            let rect = cropPixels(
                source: CGSize(width: c.sw, height: c.sh),
                viewport: CGSize(width: c.vw, height: c.vh),
                selection: CGRect(x: c.x, y: c.y, width: c.w, height: c.h))
            let want = expected.map {
                CGRect(x: $0.0, y: $0.1, width: $0.2 - $0.0, height: $0.3 - $0.1)
            }
            if rect != want {
                Issue.record(
                    "\(c): got \(String(describing: rect)), expected \(String(describing: want))")
            }
        }
        #expect(checked > 99_000)
    }

    @Test func cropPixelsRejectsInvalidInput() {
        let source = CGSize(width: 4000, height: 3000)
        let viewport = CGSize(width: 300, height: 300)
        #expect(
            cropPixels(
                source: source, viewport: viewport,
                selection: CGRect(x: 10, y: 10, width: -5, height: 5)) == nil)
        #expect(
            cropPixels(
                source: CGSize(width: 4000.5, height: 3000), viewport: viewport,
                selection: CGRect(x: 0, y: 0, width: 300, height: 300)) == nil)
        #expect(
            cropPixels(
                source: source, viewport: viewport,
                selection: CGRect(x: Double.nan, y: 0, width: 300, height: 300)) == nil)
        #expect(
            cropPixels(
                source: source, viewport: CGSize(width: 0, height: 300),
                selection: CGRect(x: 0, y: 0, width: 300, height: 300)) == nil)
    }
}

extension CropPixelsAgreementTests {
    /// Extreme and awkward values, where the fast path must either be right
    /// or step aside: compared with the exact path on its own.
    @Test func cropPixelsAgreesWithTheExactPathOnExtremeInputs() {
        var generator = SeededGenerator(seed: 0xE7)
        let awkward: [Double] = [
            0, -0.0, 1e-300, .leastNonzeroMagnitude, 1e300, 0x1p40, 0x1p53, 0.1, 1.0 / 3, 2.0 / 3,
            37.5, 262.5,
            1e-9, -1e-9,
            .nan, .infinity, -.infinity, 4000.5, 3, 299.99999999999994,
        ]
        func value(_ range: ClosedRange<Double>) -> Double {
            Bool.random(using: &generator)
                ? awkward.randomElement(using: &generator)!
                : Double.random(in: range, using: &generator)
        }
        for _ in 0..<20_000 {
            let source = CGSize(
                width: Bool.random(using: &generator)
                    ? Double(Int.random(in: 1...9000, using: &generator)) : value(1...9000),
                height: Double(Int.random(in: 1...9000, using: &generator)))
            let viewport = CGSize(width: value(1...1000), height: value(1...1000))
            let selection = CGRect(
                x: value(-100...1000), y: value(-100...1000), width: value(0...1000),
                height: value(0...1000))
            let request = CropRequest(
                sourceSize: Size(width: Double(source.width), height: Double(source.height)),
                viewport: Size(width: Double(viewport.width), height: Double(viewport.height)),
                selection: Rect(
                    x: Double(selection.origin.x), y: Double(selection.origin.y),
                    width: Double(selection.size.width),
                    height: Double(selection.size.height)))
            let exact = (try? request.mapExactly()).map {
                CGRect(x: $0.rect.x, y: $0.rect.y, width: $0.rect.width, height: $0.rect.height)
            }
            // Recorded only when it fails, as in the loops above: 20,000
            // passing expectations are not free in a debug build.
            let fast = cropPixels(source: source, viewport: viewport, selection: selection)
            if fast != exact {
                Issue.record(
                    "\(request): cropPixels \(String(describing: fast)), exact \(String(describing: exact))"
                )
            }
        }
    }
}
