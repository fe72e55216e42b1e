import CropGeometry
import CropRecords

/// An app's answer to one vector, graded against the contract.
public struct GradedAnswer: Sendable {
    /// The record's `category`, or `"uncategorised"` when it has none.
    public let category: String
    /// The record as read: the vector and the app's `result`.
    public let record: CropRecord
    /// How the app's answer differs from the contract's; empty when it
    /// passed.
    public let mismatches: [String]

    /// Whether the app's answer is the contract's.
    public var passed: Bool { mismatches.isEmpty }

    /// The record with `expected` set to the contract's answer (with the
    /// companion's cut and the face's place when it has them) and the
    /// app's `result` kept: what `cropkit replay` checks from then on.
    public var failureLine: String {
        guard case .object(let members) = record.json else { return record.json.text }
        let kept = members.filter { $0.key != "expected" && $0.key != "reason" }
        return JSONValue.object(kept + [.init("expected", record.contractExpectation())]).text
    }
}

/// Grades apps' answers: records that carry what an app computed in
/// `result` (an object `{"x","y","width","height"}` in pixels of the image
/// as seen, optionally with `stored`, or `null` for "refused"), against
/// the contract's answer.
public enum CropGrader {
    /// Grades `record`'s `result`.
    ///
    /// - Throws: `CropRecordError` when the record has no `result`, or a
    ///   `result` that is neither `null` nor a rect.
    public static func grade(_ record: CropRecord) throws(CropRecordError) -> GradedAnswer {
        guard let given = record.json["result"] else {
            throw CropRecordError(
                description:
                    "no \"result\": put the app's answer there ({\"x\",\"y\",\"width\",\"height\"} or null)"
            )
        }
        let answer = try AppAnswer(given)
        let category: String
        if case .string(let name)? = record.json["category"] {
            category = name
        } else {
            category = "uncategorised"
        }
        return GradedAnswer(
            category: category, record: record,
            mismatches: mismatches(answer, record.answer())
                + companionMismatches(answer, record) + faceMismatches(answer, record))
    }

    /// An app's answer: refused, or a rect with its stored rect if given.
    struct AppAnswer {
        var rect: [Double]?
        var stored: [Double]?
        var companion: CompanionExpectation?
        var face: FaceAnswer?

        init(_ value: JSONValue) throws(CropRecordError) {
            if case .null = value { return }
            rect = try Self.numbers(value, "result")
            if let stored = value["stored"] {
                self.stored = try Self.numbers(stored, "result.stored")
            }
            if let companion = value["companion"] {
                self.companion = try CompanionExpectation(json: companion)
            }
            if let face = value["face"] {
                self.face = try CropRecord.faceAnswer(face, "result.face")
            }
        }

        /// An app's answer given directly (the Swift kit).
        init(rect: Rect<ImagePixels>?) {
            self.rect = rect.map { [$0.x, $0.y, $0.width, $0.height] }
        }

        static func numbers(_ value: JSONValue, _ name: String) throws(CropRecordError) -> [Double]
        {
            var out: [Double] = []
            for key in ["x", "y", "width", "height"] {
                guard case .number(_, let number)? = value[key] else {
                    throw CropRecordError(
                        description:
                            "\(name) must be null or an object with numbers x, y, width, height")
                }
                out.append(number)
            }
            return out
        }
    }

    /// How `answer` differs from the contract's `contract`.
    static func mismatches(_ answer: AppAnswer, _ contract: CropRecord.Answer) -> [String] {
        let expected: [Int]?
        var expectedStored: [Int]?
        switch contract {
        case .mapped(.success(let result)):
            let (r, s) = (result.rect, result.stored)
            expected = [r.x, r.y, r.width, r.height]
            expectedStored = [s.x, s.y, s.width, s.height]
        case .turned(.success(let crop)):
            let r = crop.rect
            expected = [r.x, r.y, r.width, r.height]
        case .mapped(.failure), .turned(.failure):
            expected = nil
        }
        guard let rect = answer.rect else {
            guard let expected else { return [] }
            return ["expected \(text(expected)), got a refusal"]
        }
        guard let expected else {
            let code = contract.rejection?.code ?? "?"
            return ["expected a refusal (\(code)), got \(text(rect))"]
        }
        var out: [String] = []
        if rect != expected.map(Double.init) {
            out.append("expected \(text(expected)), got \(text(rect))")
        }
        if let stored = answer.stored, let expectedStored, stored != expectedStored.map(Double.init)
        {
            out.append("expected stored \(text(expectedStored)), got \(text(stored))")
        }
        return out
    }

    /// How the app's companion cut differs from the contract's, for a
    /// record with a companion whose mapping gives a rect: an answer
    /// without one is a mismatch.
    static func companionMismatches(_ answer: AppAnswer, _ record: CropRecord) -> [String] {
        guard record.companion != nil, case .mapped(.success(let result)) = record.answer(),
            answer.rect != nil, let cut = record.companionCut(result)
        else { return [] }
        guard let given = answer.companion else {
            return [
                "no result.companion: the record has a companion, whose cut the answer gives ({\"x\",\"y\",\"width\",\"height\",\"outputWidth\",\"outputHeight\"})"
            ]
        }
        return given.mismatches(CompanionExpectation(cut))
    }

    /// How the app's face box differs from the contract's, for a record
    /// with a face whose mapping gives a rect: an answer without one is a
    /// mismatch.
    static func faceMismatches(_ answer: AppAnswer, _ record: CropRecord) -> [String] {
        guard record.face != nil, case .mapped(.success(let result)) = record.answer(),
            answer.rect != nil
        else { return [] }
        guard let given = answer.face else {
            return [
                "no result.face: the record has a face, whose place in the crop the answer gives ({\"x\",\"y\",\"width\",\"height\"} normalized, origin at the bottom-left, or null)"
            ]
        }
        return CropRecord.faceMismatches(given, record.faceBox(result))
    }

    static func text(_ values: [Int]) -> String { values.map(String.init).joined(separator: ",") }
    static func text(_ values: [Double]) -> String {
        values.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }
            .joined(separator: ",")
    }
}
