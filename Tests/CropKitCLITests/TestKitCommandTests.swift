import CropGeometry
import CropKitTestSupport
import CropRecords
import CropTestKit
import Foundation
import Testing

/// `cropkit cases`, `cropkit grade` and `map --json`'s test vector: the loop
/// an app in any language runs against the contract.
@Suite(.announcesSkips) struct TestKitCommandTests {
    static func records(_ text: String) throws -> [CropRecord] {
        try text.split(separator: "\n").map { try CropRecord(jsonLine: String($0)) }
    }

    @Test func casesWritesVectorsWithTheContractsAnswers() throws {
        let run = cropkit("cases")
        #expect(run.status == 0)
        let records = try Self.records(run.out)
        #expect(records.count == 1000)
        var categories: Set<String> = []
        for record in records {
            #expect(record.mismatches(record.answer()).isEmpty, "\(record.json.text)")
            #expect(record.expected != nil)
            if case .string(let name)? = record.json["category"] { categories.insert(name) }
        }
        #expect(categories.count == 9)
        #expect(cropkit("cases").out == run.out)
        #expect(cropkit("cases", "--seed", "2").out != run.out)
        let all = cropkit(
            "cases", "--count", "120", "--modes", "all", "--orientations", "all", "--zoom",
            "--companions", "--faces")
        let names = try Self.records(all.out).compactMap { record -> String? in
            if case .string(let name)? = record.json["category"] { return name }
            return nil
        }
        #expect(Set(names) == Set(VectorCategory.allCases.map(\.rawValue)))
        for (arguments, message) in [
            (["--count", "-1"], "--count must be a whole number"),
            (["--modes", "aspectFit,sideways"], "--modes: unknown value 'sideways'"),
            (["--orientations", "9"], "--orientations: unknown value '9'"),
            (["--seed", "x"], "--seed must be a whole number"),
        ] {
            let bad = cropkit(["cases"] + arguments)
            #expect(bad.status == 64)
            #expect(bad.err.contains(message), "\(bad.err)")
        }
    }

    /// An app's answers: the article's recipe on every vector.
    static func answers(_ vectors: [CropVector]) -> String {
        vectors.map { vector -> String in
            let r = vector.request
            let rect = articleCropPixels(
                source: r.sourceSize.cgSize, viewport: r.viewport.cgSize,
                selection: r.selection.cgRect)
            let result: JSONValue =
                rect.map {
                    .object([
                        .init("x", .number(Double($0.minX))), .init("y", .number(Double($0.minY))),
                        .init("width", .number(Double($0.width))),
                        .init("height", .number(Double($0.height))),
                    ])
                } ?? .null
            guard case .object(let members) = vector.record.json else { return "" }
            // As an app writes it back: no expected, its own result.
            return JSONValue.object(
                members.filter { $0.key != "expected" } + [.init("result", result)]
            )
            .text + "\n"
        }.joined()
    }

    /// `cases --faces`: the face-box category's records carry a Vision
    /// face box and, in `expected`, where it lands; `replay` answers it
    /// under `result.face`; `grade` passes the contract's boxes and fails a
    /// box left with a top-left origin, naming the field.
    @Test func faceBoxVectorsAreGraded() throws {
        let run = cropkit("cases", "--faces", "--count", "260", "--seed", "4")
        #expect(run.status == 0)
        let records = try Self.records(run.out).filter {
            $0.json["category"] == .string("face-box")
        }
        #expect(records.count == 26)
        #expect(records.allSatisfy { $0.face != nil && $0.expectedFace != nil })
        let replayed = cropkit("replay", "-", input: run.out)
        #expect(replayed.status == 0, "\(replayed.err)")
        #expect(replayed.out.contains("\"face\":{") && replayed.out.contains("\"face\":null"))
        var right = ""
        var flipped = ""
        for record in records {
            guard case .object(let members) = record.json,
                case .object(let expected)? = record.json["expected"]
            else { continue }
            right += JSONValue.object(members + [.init("result", .object(expected))]).text + "\n"
            let turned = expected.map { member -> JSONValue.Member in
                guard member.key == "face", case .box(let b) = record.expectedFace else {
                    return member
                }
                return .init(
                    "face",
                    FaceAnswer.box(
                        Rect(x: b.x, y: 1 - b.y - b.height, width: b.width, height: b.height)
                    ).json)
            }
            flipped += JSONValue.object(members + [.init("result", .object(turned))]).text + "\n"
        }
        let good = cropkit("grade", "-", input: right)
        #expect(good.status == 0 && good.err.contains("26 passed, 0 failed"), "\(good.err)")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let failures = folder.appendingPathComponent("failures.jsonl").path
        let bad = cropkit("grade", "-", "--failures", failures, input: flipped)
        // The failure lines expect the contract's face: replay holds them
        // to it, and an app's flipped box under expected fails replay.
        let failed = try Self.records(String(contentsOfFile: failures, encoding: .utf8))
        #expect(!failed.isEmpty && failed.allSatisfy { $0.expectedFace != nil })
        #expect(cropkit("replay", failures).status == 0)
        #expect(bad.status == 1)
        #expect(bad.err.contains("(face-box): face.y: expected"), "\(bad.err)")
    }

    @Test func gradeFindsExactlyTheWrongAnswers() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let vectors = CropVectors.generate(VectorOptions(count: 600, seed: 77))
        let kit = CropContractTest.run(vectors, article: articleCropPixels)
        #expect(!kit.passed)
        let answers = folder.appendingPathComponent("answers.jsonl").path
        try Data(Self.answers(vectors).utf8).write(to: URL(fileURLWithPath: answers))
        let failures = folder.appendingPathComponent("failures.jsonl").path
        let shrunk = folder.appendingPathComponent("shrunk.jsonl").path
        let run = cropkit("grade", answers, "--failures", failures, "--shrink", shrunk)
        #expect(run.status == 1)
        #expect(
            run.err.contains("\(600 - kit.failures.count) passed, \(kit.failures.count) failed"))
        for row in kit.categories {
            let line = run.out.split(separator: "\n").first {
                $0.hasPrefix(row.category.rawValue + " ")
            }
            let numbers = line?.split(separator: " ").dropFirst().compactMap { Int($0) }
            #expect(numbers == [row.passed, row.failed], "\(row.category): \(line ?? "")")
        }
        // The failures are exactly the kit's, each with the contract's
        // expected: replay checks them from then on.
        let failed = try Self.records(String(contentsOfFile: failures, encoding: .utf8))
        #expect(failed.count == kit.failures.count)
        #expect(cropkit("replay", failures).status == 0)
        for record in failed {
            #expect(try !CropGrader.grade(record).passed)
        }
        let smallest = try Self.records(String(contentsOfFile: shrunk, encoding: .utf8))
        #expect(smallest.count == Set(kit.failures.map(\.vector.category)).count)
        // Right answers pass.
        let right = vectors.map { vector -> String in
            guard case .object(let members) = vector.record.json else { return "" }
            let expected = members.first { $0.key == "expected" }!.value
            return JSONValue.object(members + [.init("result", expected)]).text + "\n"
        }.joined()
        let good = cropkit("grade", "-", input: right)
        #expect(good.status == 0)
        #expect(good.err.contains("600 passed, 0 failed"))
        // The answers file is never overwritten.
        let before = try Data(contentsOf: URL(fileURLWithPath: answers))
        let same = cropkit("grade", answers, "--failures", answers)
        #expect(same.status == 64 && same.err.contains("is the answers file"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: answers)) == before)
        let missing = cropkit("grade", "-", input: vectors[0].jsonLine + "\n")
        #expect(missing.status == 2)
        #expect(missing.err.contains("no \"result\""))
    }

    @Test func mapJSONIsATestVector() throws {
        let run = cropkit(
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection",
            "75,75,150,150", "--json")
        #expect(run.status == 0)
        let record = try CropRecord(jsonLine: run.out.trimmingCharacters(in: .newlines))
        #expect(record.json["result"] == nil)
        #expect(record.json["expected"]?.text == #"{"x":1000,"y":500,"width":2000,"height":2000}"#)
        let refused = cropkit(
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "0,0,300,20",
            "--json")
        #expect(refused.status == 1)
        let rejected = try CropRecord(jsonLine: refused.out.trimmingCharacters(in: .newlines))
        #expect(rejected.expected == .rejected)
        #expect(cropkit("replay", "-", input: run.out + refused.out).status == 0)
        let turned = cropkit(
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection",
            "75,75,150,150", "--angle", "3", "--json")
        let straightened = try CropRecord(jsonLine: turned.out.trimmingCharacters(in: .newlines))
        #expect(straightened.expected != nil && straightened.json["quad"] != nil)
        #expect(cropkit("replay", "-", input: turned.out).status == 0)
        #expect(cropkit("map", "--help").out.contains("\"expected\" is what"))
    }
}
