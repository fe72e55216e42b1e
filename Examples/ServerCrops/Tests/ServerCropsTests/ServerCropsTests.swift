import CropImaging
import Foundation
import Testing

/// A package that depends only on CropImaging runs a manifest: in two
/// shards, each reported; a rerun after a lost output resumes (that line
/// written, the rest skipped); the shards' reports merge into one that
/// says the manifest is done.
@Suite struct ServerCropsTests {
    @Test func aManifestRunsInShardsResumesAndMerges() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("server-crops-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A 40x30 photo, each pixel its own colour, and ten 5x5 crops of it.
        var samples: [UInt8] = []
        for y in 0..<30 {
            for x in 0..<40 { samples += [UInt8(x * 6), UInt8(y * 8), 128] }
        }
        let photo = RasterImage(
            width: 40, height: 30, colorType: .rgb, bitDepth: 8, samples: samples)
        try Data(PNGEncoder().encode(photo)).write(to: folder.appendingPathComponent("p.png"))
        let manifest = folder.appendingPathComponent("m.jsonl").path
        let lines = (0..<10).map { i in
            #"{"input":"p.png","output":"out/\#(i).png","pixels":{"x":\#(i * 3),"y":\#(i * 2),"width":5,"height":5}}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: manifest, atomically: true, encoding: .utf8)

        func run(shard index: Int) async throws -> [(Int, BatchLineResult.Status)] {
            var options = BatchOptions()
            options.shard = try #require(BatchShard(index: index, count: 2))
            options.report = "\(manifest).\(index).jsonl"
            var seen: [(Int, BatchLineResult.Status)] = []
            for try await result in Batch(manifest: manifest, options: options).results() {
                seen.append((result.line, result.status))
            }
            return seen
        }
        let first = try await run(shard: 0)
        let second = try await run(shard: 1)
        #expect(first.map(\.0) == [1, 3, 5, 7, 9] && second.map(\.0) == [2, 4, 6, 8, 10])
        #expect((first + second).allSatisfy { $0.1 == .written })
        let crop = try ImageSource.open(path: folder.appendingPathComponent("out/4.png").path)
        #expect(crop.storedSize.width == 5 && crop.storedSize.height == 5)

        // An output lost (a node died before it was kept): the rerun
        // crops that line again and skips the rest.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("out/4.png"))
        let rerun = try await run(shard: 0)
        #expect(rerun.map(\.1) == [.skipped, .skipped, .written, .skipped, .skipped])

        let summary = try BatchMerge(
            manifest: manifest, reports: ["\(manifest).0.jsonl", "\(manifest).1.jsonl"]
        ).run()
        #expect(summary.isComplete)
        #expect(summary.lines == 10 && summary.written + summary.skipped == 10)
    }
}
