import CropImaging
import Foundation

// server-crops MANIFEST.jsonl [I N]: crops task I of N's lines of the
// manifest (all of them without I and N) on every core, reporting to
// MANIFEST.jsonl.I.jsonl, one line printed per manifest line; run it again
// after a kill and it resumes. Exit 1 when a line failed, 2 when the
// manifest was refused.
let arguments = CommandLine.arguments.dropFirst()
guard let manifest = arguments.first else {
    FileHandle.standardError.write(Data("usage: server-crops MANIFEST.jsonl [I N]\n".utf8))
    exit(64)
}
let numbers = arguments.dropFirst().compactMap { Int($0) }
var options = BatchOptions()
if numbers.count == 2 {
    guard let shard = BatchShard(index: numbers[0], count: numbers[1]) else {
        FileHandle.standardError.write(Data("I N: 0 <= I < N\n".utf8))
        exit(64)
    }
    options.shard = shard
}
options.report = "\(manifest).\(options.shard.index).jsonl"
var failed = 0
do {
    for try await result in Batch(manifest: manifest, options: options).results() {
        let failure = result.failure.map { " (\($0.code.name)): \($0.message)" } ?? ""
        if result.failure != nil { failed += 1 }
        print(
            "\(result.progress.done)/\(result.progress.total) line \(result.line) \(result.status)\(failure)"
        )
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(2)
}
exit(failed > 0 ? 1 : 0)
