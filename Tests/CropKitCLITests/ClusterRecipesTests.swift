import CropKitTestSupport
import Foundation
import Testing

/// The cluster recipes (Slurm, Kubernetes, GNU parallel) have one source
/// each, in scripts/cluster/, which the Slurm tests run; the article shows
/// them verbatim.
@Suite(.announcesSkips) struct ClusterRecipesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The fenced block that follows `heading` in the article.
    static func block(after heading: String, in article: String) -> String? {
        guard let start = article.range(of: heading + "\n") else { return nil }
        let rest = article[start.upperBound...]
        guard let open = rest.range(of: "\n```"),
            let lineEnd = rest[open.upperBound...].firstIndex(of: "\n"),
            let close = rest[lineEnd...].range(of: "\n```\n")
        else { return nil }
        return String(rest[rest.index(after: lineEnd)..<close.lowerBound]) + "\n"
    }

    @Test(arguments: [
        ("### Slurm", "crop-array.sbatch"), ("### Kubernetes", "indexed-job.yaml"),
        ("### GNU parallel", "parallel.sh"),
    ])
    func theArticleShowsEachRecipeAsItsFileIs(heading: String, file: String) throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent(
                "Sources/CropImaging/CropImaging.docc/BatchesOnACluster.md"), encoding: .utf8)
        let recipe = try String(
            contentsOf: Self.root.appendingPathComponent("scripts/cluster/\(file)"), encoding: .utf8
        )
        let shown = try #require(
            Self.block(after: heading, in: article), "no block under \(heading)")
        #expect(shown == recipe, "the article's \(file) differs from scripts/cluster/\(file)")
        // Each one shards with --shard and writes the report the merge reads.
        #expect(
            recipe.contains("--shard") && recipe.contains("--report") && recipe.contains("--merge"))
    }
}
