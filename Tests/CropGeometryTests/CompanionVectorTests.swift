import CropGeometry
import CropRecords
import CropTestKit
import Foundation
import Testing

/// The companion category of the test kit: vectors carry a companion's
/// size and its cut under `expected`, replay and the grader check an
/// app's cut against the contract's, and the default vectors are
/// unchanged by it.
@Suite struct CompanionVectorTests {
    static let options = VectorOptions(
        count: 600, seed: 42, orientations: EXIFOrientation.allCases, companions: true)

    @Test func companionVectorsCarryTheCutAndReplayClean() throws {
        let vectors = CropVectors.generate(Self.options).filter { $0.category == .companion }
        #expect(vectors.count >= 40)
        var copies = 0
        for vector in vectors {
            let record = try CropRecord(jsonLine: vector.jsonLine)
            #expect(record.companion == vector.companion)
            guard case .success(let result) = record.replay() else {
                #expect(record.expectedCompanion == nil)
                continue
            }
            let cut = try #require(record.companionCut(result))
            #expect(record.expectedCompanion == CompanionExpectation(cut))
            #expect(record.mismatches(record.answer()).isEmpty, "\(vector.jsonLine)")
            if cut.copyRect != nil { copies += 1 }
            // The replayed line answers the companion under result.
            let replayed = record.replayed(answer: record.answer())
            #expect(replayed["result"]?["companion"] == CompanionExpectation(cut).json)
        }
        #expect(copies > 0, "some vectors cut a companion on its grid")
    }

    /// Categories added for companions leave the default vectors alone:
    /// the same seed writes the same lines without --companions.
    @Test func theDefaultVectorsAreUnchanged() {
        let plain = CropVectors.generate(VectorOptions(count: 50, seed: 9))
        #expect(!plain.contains { $0.category == .companion || $0.companion != nil })
        #expect(!plain.contains { $0.jsonLine.contains("companion") })
    }

    /// An app that rounds the companion's size down, or scales the crop's
    /// origin by the wrong side, is graded wrong field by field; one that
    /// leaves the companion out is told to answer it.
    @Test func theGraderChecksAnAppsCompanionCut() throws {
        let vector = try #require(
            CropVectors.generate(Self.options).first {
                $0.category == .companion && $0.expectedCompanion?.copyRect == nil
                    && ($0.expectedCompanion.map { CompanionExpectation($0).width } ?? 0) > 3
            })
        let cut = try #require(vector.expectedCompanion)
        guard case .success(let result) = vector.expected else { return }
        let rect = result.rect
        func answer(_ companion: CompanionExpectation?) throws -> GradedAnswer {
            var result: [JSONValue.Member] = [
                .init("x", .number(rect.x)), .init("y", .number(rect.y)),
                .init("width", .number(rect.width)), .init("height", .number(rect.height)),
            ]
            if let companion { result.append(.init("companion", companion.json)) }
            guard case .object(let members) = vector.record.json else {
                throw CropRecordError(description: "not an object")
            }
            let line = JSONValue.object(members + [.init("result", .object(result))]).text
            return try CropGrader.grade(CropRecord(jsonLine: line))
        }
        let right = CompanionExpectation(cut)
        #expect(try answer(right).passed)
        var floored = right
        floored.outputWidth = Int(right.width)
        floored.x += 0.5
        let wrong = try answer(floored)
        #expect(
            wrong.mismatches.contains { $0.hasPrefix("companion.x: expected") }
                && (floored.outputWidth == right.outputWidth
                    || wrong.mismatches.contains { $0.hasPrefix("companion.outputWidth") })
        )
        let missing = try answer(nil)
        #expect(missing.mismatches.first?.hasPrefix("no result.companion") == true)
        // The same difference as values, for a program.
        let differences = right.differences(floored)
        let x = try #require(differences.first { $0.field == "companion.x" })
        #expect(x.expected == .number(floored.x) && x.actual == .number(right.x))
        #expect(x.summary == right.mismatches(floored).first)
        #expect(differences.map(\.summary) == right.mismatches(floored))
    }

    /// A record whose companion has no grid is refused by name.
    @Test func aCompanionThatLiesIsRefused() {
        let line =
            #"{"source":{"width":400,"height":300},"viewport":{"width":100,"height":100},"selection":{"x":0,"y":0,"width":50,"height":50},"companion":{"width":0,"height":10}}"#
        #expect(throws: CropRecordError.self) { try CropRecord(jsonLine: line) }
        let fractional = line.replacingOccurrences(of: #""width":0,"#, with: #""width":2.5,"#)
        #expect(throws: CropRecordError.self) { try CropRecord(jsonLine: fractional) }
    }
}
