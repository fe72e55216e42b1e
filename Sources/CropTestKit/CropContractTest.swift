import CropGeometry
import CropRecords
import Foundation

/// Runs an app's crop function against test vectors and says where it
/// departs from the contract: per category, passed and failed, each failure
/// as a record ready for `cropkit replay`, and for each category the
/// smallest failing case it can find.
///
/// ```swift
/// func myCropRect(_ image: CGSize, _ view: CGSize, _ selection: CGRect) -> CGRect? {
///     cropPixels(source: image, viewport: view, selection: selection)  // the app's own code
/// }
/// let report = CropContractTest.run(CropVectors.generate(VectorOptions()), article: myCropRect)
/// print(report.summary)
/// ```
///
/// In a test, fail with the report's message; it holds the first failures
/// as JSON lines:
///
/// ```swift
/// // XCTest:         XCTAssertNil(report.failureMessage())
/// // Swift Testing:  #expect(report.failureMessage() == nil)
/// ```
public enum CropContractTest {
    /// A function of the article's signature: the image's pixel size, the
    /// view's size in points, the selection in the view's points; the
    /// pixel rect, or `nil` for "refused". Vectors it cannot answer (other
    /// content modes, orientations, zoom) are skipped.
    public typealias ArticleFunction = (CGSize, CGSize, CGRect) -> CGRect?

    /// A function over CropKit's request: the pixel rect in the image as
    /// seen, or `nil` for "refused".
    public typealias RequestFunction = (CropRequest) -> PixelRect<ImagePixels>?

    /// Runs `function` on every vector it can answer.
    public static func run(_ vectors: [CropVector], article function: ArticleFunction)
        -> ContractReport
    {
        // The article's vectors are upright: its image size is the stored one.
        run(vectors, applicable: \.fitsArticleSignature) { request in
            function(request.sourceSize.cgSize, request.viewport.cgSize, request.selection.cgRect)
                .map(Rect<ImagePixels>.init)
        }
    }

    /// Runs `function` on every vector.
    public static func run(_ vectors: [CropVector], _ function: RequestFunction) -> ContractReport {
        run(vectors) { request in
            function(request).map {
                Rect(
                    x: Double($0.x), y: Double($0.y), width: Double($0.width),
                    height: Double($0.height))
            }
        }
    }

    /// A function's answer as given: a rect of a fraction of a pixel is
    /// an answer too, and a wrong one.
    typealias Answering = (CropRequest) -> Rect<ImagePixels>?

    static func run(
        _ vectors: [CropVector], applicable: (CropVector) -> Bool = { _ in true },
        _ function: Answering
    ) -> ContractReport {
        var report = ContractReport()
        for vector in vectors {
            guard applicable(vector) else {
                report.skipped += 1
                continue
            }
            let failure = check(vector, function)
            report.count(vector.category, passed: failure == nil)
            if let failure { report.failures.append(failure) }
        }
        var seen: Set<VectorCategory> = []
        for failure in report.failures where seen.insert(failure.vector.category).inserted {
            report.shrunk.append(shrink(failure, applicable: applicable, function))
        }
        return report
    }

    /// The failure of `function` on `vector`, if it fails.
    static func check(_ vector: CropVector, _ function: Answering) -> ContractFailure? {
        let got = function(vector.request)
        let mismatches = CropGrader.mismatches(
            CropGrader.AppAnswer(rect: got), .mapped(vector.expected))
        return mismatches.isEmpty
            ? nil : ContractFailure(vector: vector, got: got, mismatches: mismatches)
    }

    /// A smaller vector that still fails: fewer digits in the selection,
    /// then a smaller photo and view, each step kept only when `function`
    /// still departs from the contract (at most 200 tries).
    static func shrink(
        _ failure: ContractFailure, applicable: (CropVector) -> Bool,
        _ function: Answering
    ) -> ContractFailure {
        var best = failure
        var tries = 0
        var improved = true
        while improved && tries < 200 {
            improved = false
            for candidate in smaller(best.vector.request) {
                tries += 1
                let vector = CropVector(category: best.vector.category, request: candidate)
                guard applicable(vector), let found = check(vector, function) else { continue }
                best = found
                improved = true
                break
            }
        }
        return best
    }

    /// Requests one step simpler than `request`.
    static func smaller(_ request: CropRequest) -> [CropRequest] {
        var out: [CropRequest] = []
        let s = request.selection
        for step in [1.0, 0.5, 0.25, 1.0 / 64] {
            let rounded = Rect<ViewPoints>(
                x: (s.x / step).rounded() * step, y: (s.y / step).rounded() * step,
                width: max(step, (s.width / step).rounded() * step),
                height: max(step, (s.height / step).rounded() * step))
            if rounded != s {
                var r = request
                r.selection = rounded
                out.append(r)
            }
        }
        let size = request.sourceSize
        if size.width >= 2 || size.height >= 2 {
            var r = request
            r.sourceSize = Size(
                width: max(1, (size.width / 2).rounded(.down)),
                height: max(1, (size.height / 2).rounded(.down)))
            out.append(r)
        }
        let view = request.viewport
        if view.width >= 2 && view.height >= 2 {
            var r = request
            r.viewport = Size(
                width: (view.width / 2).rounded(.down), height: (view.height / 2).rounded(.down))
            r.selection = Rect(x: s.x / 2, y: s.y / 2, width: s.width / 2, height: s.height / 2)
            out.append(r)
        }
        return out
    }
}

/// One vector an app's function got wrong.
public struct ContractFailure: Sendable {
    /// The vector.
    public let vector: CropVector
    /// What the function returned, as it returned it (`nil`: refused).
    public let got: Rect<ImagePixels>?
    /// How that differs from the contract.
    public let mismatches: [String]

    /// The failure as a record: the vector's members, `expected` (the
    /// contract's), `category`, and `result` (the function's): a line
    /// `cropkit replay` checks and `cropkit grade` grades.
    public var jsonLine: String {
        var members: [JSONValue.Member] = []
        if case .object(let vectorMembers) = vector.record.json { members = vectorMembers }
        let result: JSONValue =
            got.map { r in
                .object([
                    .init("x", .number(r.x)), .init("y", .number(r.y)),
                    .init("width", .number(r.width)), .init("height", .number(r.height)),
                ])
            } ?? .null
        return JSONValue.object(members + [.init("result", result)]).text
    }
}

/// What ``CropContractTest`` found.
public struct ContractReport: Sendable {
    /// Passed and failed vectors, by category in the order first met.
    public private(set) var categories: [(category: VectorCategory, passed: Int, failed: Int)] = []
    /// Every failure, in vector order.
    public internal(set) var failures: [ContractFailure] = []
    /// For each failing category, the smallest failing vector found.
    public internal(set) var shrunk: [ContractFailure] = []
    /// Vectors the function could not answer (the article's signature has
    /// no content mode, orientation or zoom).
    public internal(set) var skipped = 0

    /// Whether every vector answered passed.
    public var passed: Bool { failures.isEmpty }

    mutating func count(_ category: VectorCategory, passed: Bool) {
        if let index = categories.firstIndex(where: { $0.category == category }) {
            if passed { categories[index].passed += 1 } else { categories[index].failed += 1 }
        } else {
            categories.append((category, passed ? 1 : 0, passed ? 0 : 1))
        }
    }

    /// A table: per category, passed and failed; then the skipped count.
    public var summary: String {
        var lines = ["category            passed  failed"]
        for row in categories {
            let name = row.category.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)
            lines.append(
                "\(name)  \(String(row.passed).leftPadded(6))  \(String(row.failed).leftPadded(6))")
        }
        if skipped > 0 { lines.append("skipped (not answerable by the function): \(skipped)") }
        return lines.joined(separator: "\n")
    }

    /// `nil` when every vector passed; else the summary and the smallest
    /// failure of each category, then the first `limit` failures, as JSON
    /// lines for `cropkit replay`.
    public func failureMessage(limit: Int = 5) -> String? {
        guard !passed else { return nil }
        var lines = [summary, "smallest failure of each category:"]
        lines += shrunk.map(\.jsonLine)
        lines.append("first failures:")
        lines += failures.prefix(limit).map(\.jsonLine)
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
