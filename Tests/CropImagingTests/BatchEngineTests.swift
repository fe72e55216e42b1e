import CropImaging
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// The batch engine as a library user meets it (``Batch``): the results in
/// line order with their progress, resume, shards and their merge, typed
/// failures, the whole-manifest check, and cancellation, through the
/// callback and through the `AsyncSequence`.
@Suite(.announcesSkips) struct BatchEngineTests {
    /// A folder with `photo.png` (64x48, each pixel its own colour) and a
    /// manifest of `lines` crops of it, each an 8x8 square at its own place
    /// into `out/N.png`; `extra` lines are appended as they are.
    static func manifest(lines: Int, extra: [String] = []) throws -> (folder: URL, path: String) {
        let folder = try TestData.temporaryFolder()
        var samples: [UInt8] = []
        for y in 0..<48 {
            for x in 0..<64 { samples += [UInt8(x * 4), UInt8(y * 5), UInt8((x + y) % 256)] }
        }
        let photo = RasterImage(
            width: 64, height: 48, colorType: .rgb, bitDepth: 8, samples: samples)
        try Data(PNGEncoder().encode(photo)).write(to: folder.appendingPathComponent("photo.png"))
        let text =
            (0..<lines).map { index in
                #"{"input":"photo.png","output":"out/\#(index).png","pixels":{"x":\#(index % 7 * 8),"y":\#(index % 5 * 8),"width":8,"height":8}}"#
            } + extra
        let path = folder.appendingPathComponent("manifest.jsonl").path
        try (text.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    static func outputs(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("out").path))
            ?? []).sorted()
    }

    @Test func theSequenceGivesEveryLineInOrderWithProgressAndWritesTheReport() async throws {
        let (folder, manifest) = try Self.manifest(
            lines: 12,
            extra: [
                #"{"input":"photo.png","output":"out/bad.png","pixels":{"x":60,"y":0,"width":8,"height":8}}"#
            ])
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = BatchOptions()
        options.jobs = 2
        options.report = folder.appendingPathComponent("report.jsonl").path
        var results: [BatchLineResult] = []
        for try await result in Batch(manifest: manifest, options: options).results() {
            results.append(result)
        }
        #expect(results.map(\.line) == Array(1...13))
        #expect(results.map(\.progress.done) == Array(1...13))
        #expect(results.allSatisfy { $0.progress.total == 13 })
        #expect(results.prefix(12).allSatisfy { $0.status == .written })
        // A rect reaching past the photo's right edge covers no pixel there.
        #expect(results[12].status == .failed)
        #expect(results[12].failure?.code == .noPixels)
        #expect(results[3].outputs == [folder.appendingPathComponent("out/3.png").path])
        #expect(results[3].input == folder.appendingPathComponent("photo.png").path)
        // The crop is the 8x8 square the line asks for.
        let written = try ImageSource.open(path: results[3].outputs[0])
        #expect(written.storedSize.width == 8 && written.storedSize.height == 8)
        // The report holds each result's JSON, in line order.
        let report = try String(contentsOfFile: options.report!, encoding: .utf8)
        #expect(report == results.map { $0.json.text + "\n" }.joined())
    }

    @Test func aRerunResumesAndForceRedoes() throws {
        let (folder, manifest) = try Self.manifest(lines: 6)
        defer { try? FileManager.default.removeItem(at: folder) }
        let batch = Batch(manifest: manifest)
        #expect(try batch.run { _ in }.written == 6)
        // Killed after some lines: the rest are cropped, the others kept.
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent("out/2.png").path)
        var statuses: [BatchLineResult.Status] = []
        let summary = try batch.run { statuses.append($0.status) }
        #expect(statuses == [.skipped, .skipped, .written, .skipped, .skipped, .skipped])
        #expect((summary.written, summary.skipped, summary.failed) == (1, 5, 0))
        var forced = batch
        forced.options.force = true
        #expect(try forced.run { _ in }.written == 6)
    }

    @Test func shardsShareTheManifestAndMergeIntoOneReport() throws {
        let (folder, manifest) = try Self.manifest(lines: 9)
        defer { try? FileManager.default.removeItem(at: folder) }
        var reports: [String] = []
        var lines: [[Int]] = []
        for index in 0..<3 {
            var options = BatchOptions()
            options.shard = try #require(BatchShard(index: index, count: 3))
            options.report = folder.appendingPathComponent("shard-\(index).jsonl").path
            reports.append(options.report!)
            var seen: [Int] = []
            try Batch(manifest: manifest, options: options).run { seen.append($0.line) }
            lines.append(seen)
        }
        #expect(lines == [[1, 4, 7], [2, 5, 8], [3, 6, 9]])
        #expect(Self.outputs(in: folder).count == 9)
        #expect(BatchShard(index: 3, count: 3) == nil)
        var merged: [UInt8] = []
        let summary = try BatchMerge(manifest: manifest, reports: reports).run { merged += $0 }
        #expect(summary.isComplete && summary.written == 9 && summary.lines == 9)
        let mergedLines = String(decoding: merged, as: UTF8.self).split(separator: "\n")
        #expect(mergedLines.count == 9)
        for (index, line) in mergedLines.enumerated() {
            guard case .number(_, let number)? = try JSONValue(parsing: String(line))["line"] else {
                Issue.record("no line number: \(line)")
                continue
            }
            #expect(number == Double(index + 1))
        }
        // A shard's report left out: its lines are missing, named.
        let partial = try BatchMerge(manifest: manifest, reports: Array(reports.dropLast())).run()
        #expect(partial.missing == [3, 6, 9] && !partial.isComplete)
        #expect(partial.description.contains("missing (in no report; rerun their shards): 3, 6, 9"))
    }

    @Test func aLineFailsTypedAndTheManifestIsCheckedWhole() throws {
        let (folder, manifest) = try Self.manifest(
            lines: 1,
            extra: [
                #"{"input":"photo.png","output":"out/x.png","pixels":{"x":0,"y":0,"width":8,"height":8},"angel":3}"#,
                #"{"input":"none.png","output":"out/y.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
                #"{"input":"photo.png","output":"out/z.bmp","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
            ])
        defer { try? FileManager.default.removeItem(at: folder) }
        var failures: [BatchFailure?] = []
        try Batch(manifest: manifest).run { failures.append($0.failure) }
        #expect(failures[0] == nil)
        #expect(failures[1]?.code == .manifest)
        #expect(failures[1]?.message.contains("did you mean \"angle\"") == true)
        #expect(failures[2]?.code == .imaging(.cannotOpen))
        #expect(failures[2]?.message.contains("none.png") == true)
        #expect(failures[3]?.code == .manifest)
        #expect(failures[3]?.message.contains(".bmp") == true)
        // Two lines writing one output: refused before any crop.
        let twice = try Self.manifest(
            lines: 2,
            extra: [
                #"{"input":"photo.png","output":"out/0.png","pixels":{"x":0,"y":0,"width":4,"height":4}}"#
            ])
        defer { try? FileManager.default.removeItem(at: twice.folder) }
        #expect {
            try Batch(manifest: twice.path).run { _ in }
        } throws: { error in
            guard case .conflict(_, let problem) = error as? BatchError else { return false }
            return problem.contains("lines 1 and 3 both write")
        }
        #expect(Self.outputs(in: twice.folder).isEmpty)
    }

    @Test func cancellingStopsBetweenLinesAndWritesNoReport() async throws {
        let (folder, manifest) = try Self.manifest(lines: 400)
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = BatchOptions()
        options.jobs = 1
        options.report = folder.appendingPathComponent("report.jsonl").path
        // Through the callback's flag.
        let cancellation = BatchCancellation()
        var seen = 0
        #expect {
            try Batch(manifest: manifest, options: options).run(cancellation: cancellation) { _ in
                seen += 1
                if seen == 3 { cancellation.cancel() }
            }
        } throws: { error in
            if case .cancelled = error as? BatchError { true } else { false }
        }
        #expect(seen == 3)
        #expect(Self.outputs(in: folder).count == 3)
        #expect(!FileManager.default.fileExists(atPath: options.report!))
        // Through the task: the sequence throws CancellationError, and no
        // more than the buffered results (and the line under way) were cut.
        let batch = Batch(manifest: manifest, options: options)
        let task = Task {
            var taken = 0
            for try await _ in batch.results() {
                taken += 1
                if taken == 1 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return taken
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(Self.outputs(in: folder).count < 3 + 1 + BatchResults.bufferedResults + 2)
        #expect(!FileManager.default.fileExists(atPath: options.report!))
        // Nothing half-written: every output there reads as an 8x8 PNG.
        for name in Self.outputs(in: folder) {
            let source = try ImageSource.open(
                path: folder.appendingPathComponent("out/\(name)").path)
            #expect(source.storedSize.width == 8, "\(name)")
        }
    }

    @Test func aRefusedManifestEndsTheSequenceWithItsError() async throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("missing.jsonl").path
        await #expect {
            for try await _ in Batch(manifest: path).results() {}
        } throws: { error in
            if case .unreadable = error as? BatchError { true } else { false }
        }
    }
}
