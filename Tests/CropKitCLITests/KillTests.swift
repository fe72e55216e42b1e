import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A kill at any moment leaves either the old output or the complete new
/// one: `cropkit crop` (the real binary) is killed at spread-out moments of
/// a large write.
@Suite(.announcesSkips) struct KillTests {
    /// The cropkit binary built beside this test bundle.
    static var binary: String? { CropKitBinary.path }

    @Test(.enabled(if: binary != nil, "no cropkit binary beside the tests"))
    func killedCropLeavesTheOldFileOrTheCompleteNewOne() throws {
        let binary = try #require(Self.binary)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("big.png").path
        #expect(cropkit("fixture", "2400x2000", "--kind", "coordinates", "-o", input).status == 0)
        let output = folder.appendingPathComponent("out.png").path
        let old = Fixture.coordinates(width: 3, height: 3)
        let oldBytes = try PNGEncoder().encode(old)
        let expected = Fixture.coordinates(width: 2400, height: 2000).cropped(
            to: PixelRect(x: 100, y: 100, width: 2200, height: 1800))
        var sawOld = 0
        var sawNew = 0
        for delay in stride(from: 0.0, through: 0.9, by: 0.1) {
            try Data(oldBytes).write(to: URL(fileURLWithPath: output))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [
                "crop", input, "-o", output, "--pixels", "100,100,2200,1800", "--force",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever the moment, out.png is one of the two whole files,
            // and no temporary is left (an unnamed one vanishes with its
            // writer).
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                    == ["big.png", "out.png"], "after \(delay) s")
            let now = try PNGDecoder.decode(path: output)
            if now == old {
                sawOld += 1
            } else {
                #expect(
                    now == expected,
                    "after \(delay) s the output is neither the old file nor the new one")
                sawNew += 1
            }
        }
        print("kill test: \(sawOld) times the old file, \(sawNew) times the complete new one")
        #expect(sawOld > 0)
    }

    /// A batch killed at any moment leaves each output whole or absent, and
    /// no temporary; a rerun then completes the rest.
    @Test(.enabled(if: binary != nil, "no cropkit binary beside the tests"))
    func killedBatchLeavesOnlyWholeOutputs() throws {
        let binary = try #require(Self.binary)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("big.png").path
        #expect(cropkit("fixture", "2400x2000", "--kind", "coordinates", "-o", input).status == 0)
        let outputs = folder.appendingPathComponent("out")
        let rects = (0..<6).map {
            PixelRect<StoredPixels>(x: 37 * $0, y: 11 * $0, width: 2000, height: 1500)
        }
        let manifest = folder.appendingPathComponent("manifest.jsonl").path
        let lines = rects.enumerated().map { index, rect in
            #"{"input":"big.png","output":"out/c\#(index).png","pixels":{"x":\#(rect.x),"y":\#(rect.y),"width":\#(rect.width),"height":\#(rect.height)}}"#
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        let source = Fixture.coordinates(width: 2400, height: 2000)
        for delay in stride(from: 0.05, through: 1.2, by: 0.15) {
            try? FileManager.default.removeItem(at: outputs)
            try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["batch", manifest, "--jobs", "2"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let names = try FileManager.default.contentsOfDirectory(atPath: outputs.path)
            for name in names {
                #expect(!name.hasPrefix("."), "after \(delay) s: a temporary \(name) is left")
                guard let index = Int(name.dropFirst().prefix(while: \.isNumber)),
                    !name.hasPrefix(".")
                else { continue }
                let written = try PNGDecoder.decode(path: outputs.appendingPathComponent(name).path)
                #expect(written == source.cropped(to: rects[index]), "after \(delay) s: \(name)")
            }
        }
    }
}
