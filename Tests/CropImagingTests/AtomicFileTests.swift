import CropImaging
import CropKitTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.announcesSkips) struct AtomicFileTests {
    @Test func writesReplacesOnlyWhenAskedAndLeavesNoTemporaryFiles() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.png").path
        try AtomicFile.write([1, 2, 3], to: path, replacing: false)
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        #expect(throws: ImagingError.outputExists(path: path)) {
            try AtomicFile.write([4], to: path, replacing: false)
        }
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        try AtomicFile.write([4], to: path, replacing: true)
        #expect(FileManager.default.contents(atPath: path) == Data([4]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.png"])
    }

    /// Small chunks are gathered before they are written: a mix of small
    /// and large chunks, with rewrites of bytes still gathered and of
    /// bytes already in the file, comes out as written, in order.
    @Test func gatheredChunksAndRewritesLandInOrder() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.webp").path
        let writer = try AtomicFile.Writer(path: path, replacing: false)
        var expected: [UInt8] = []
        var state: UInt32 = 7
        func chunk(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                state = state &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: state >> 16)
            }
        }
        for count in [12, 3, 70_000, 1, 65_536, 65_535, 2, 200_000, 9, 40_000, 30_000] {
            let bytes = chunk(count)
            try writer.write(bytes[...])
            expected += bytes
            if count == 1 || count == 9 {
                // A header fixed at the end, as the animated WebP writer
                // does: here while the last bytes are still gathered.
                let patch = chunk(8)
                try writer.rewrite(at: 4, with: patch)
                expected.replaceSubrange(4..<12, with: patch)
                try writer.rewrite(at: expected.count - 1, with: [0xAB])
                expected[expected.count - 1] = 0xAB
            }
        }
        try writer.commit()
        #expect(FileManager.default.contents(atPath: path) == Data(expected))
    }

    @Test func neverOverwritesTheInput() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("in.png").path
        try AtomicFile.write([9], to: path, replacing: false)
        let alias = folder.appendingPathComponent("./in.png").path
        #expect(throws: ImagingError.outputIsInput(path: alias)) {
            try AtomicFile.write(
                [1], to: alias, replacing: true, protecting: ImageInput(path: path))
        }
        #expect(FileManager.default.contents(atPath: path) == Data([9]))
    }

    @Test func failureLeavesNothingBehind() throws {
        #expect(throws: ImagingError.self) {
            try AtomicFile.write([1], to: "/nonexistent-folder-cropkit/out.png", replacing: true)
        }
    }

    /// A temporary left by a killed writer (its lock free, older than a
    /// minute) is removed by the next write in that folder; one whose
    /// writer still holds its lock, one made a moment ago, and files of
    /// other names are left alone.
    @Test func staleTemporariesOfKilledWritersAreRemoved() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func make(_ name: String, age: Int) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
            let old = Date(timeIntervalSinceNow: -Double(age))
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
            return path
        }
        _ = try make(".crop.png.cropkit-AbC123", age: 3600)
        let held = try make(".other.png.cropkit-XyZ789", age: 3600)
        _ = try make(".fresh.png.cropkit-QwE456", age: 0)
        _ = try make(".notes.txt", age: 3600)
        _ = try make("crop.png.cropkit-AbC123", age: 3600)
        // A live writer holds the lock on its temporary.
        let descriptor = open(held, O_RDONLY)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        try AtomicFile.write(
            [7], to: folder.appendingPathComponent("new.png").path, replacing: false)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(
            left == [
                ".fresh.png.cropkit-QwE456", ".notes.txt", ".other.png.cropkit-XyZ789",
                "crop.png.cropkit-AbC123", "new.png",
            ])
    }

    /// Only a regular file is ever replaced, or a link's own link when it
    /// points to one: a folder, a device, or a link to a device is refused,
    /// with `replacing` too.
    @Test func onlyRegularFilesAreReplaced() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sub = folder.appendingPathComponent("sub").path
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        #expect(throws: ImagingError.outputNotAFile(path: sub, kind: "folder")) {
            try AtomicFile.write([1], to: sub, replacing: true)
        }
        let device = folder.appendingPathComponent("stdout").path
        try FileManager.default.createSymbolicLink(atPath: device, withDestinationPath: "/dev/null")
        #expect(throws: ImagingError.outputNotAFile(path: device, kind: "character device")) {
            try AtomicFile.write([1], to: device, replacing: true)
        }
        #expect(throws: ImagingError.outputNotAFile(path: "/dev/null", kind: "character device")) {
            try AtomicFile.write([1], to: "/dev/null", replacing: true)
        }
        // A link to a regular file: the link is replaced, its target kept.
        let target = folder.appendingPathComponent("target.png").path
        try AtomicFile.write([7], to: target, replacing: false)
        let link = folder.appendingPathComponent("link.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try AtomicFile.write([8], to: link, replacing: true)
        #expect(FileManager.default.contents(atPath: target) == Data([7]))
        #expect(FileManager.default.contents(atPath: link) == Data([8]))
        #expect(
            (try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType)
                == .typeRegular)
    }

    /// A new file's mode is what the umask leaves of 0666 (it was 0644
    /// whatever the umask); a replaced file keeps its own.
    @Test func modesFollowTheUmaskAndSurviveReplacement() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func mode(_ path: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
                ?? -1
        }
        let mask = umask(0o022)
        umask(mask)
        let fresh = folder.appendingPathComponent("new.png").path
        try AtomicFile.write([1], to: fresh, replacing: false)
        #expect(try mode(fresh) == Int(0o666 & ~mask))
        let secret = folder.appendingPathComponent("secret.png").path
        try AtomicFile.write([1], to: secret, replacing: false)
        chmod(secret, 0o600)
        try AtomicFile.write([2], to: secret, replacing: true)
        #expect(try mode(secret) == 0o600)
        #expect(FileManager.default.contents(atPath: secret) == Data([2]))
    }

    /// An output name of 250 bytes works: the temporary keeps only 64
    /// bytes of it (it failed with "File name too long").
    @Test func longOutputNamesWork() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = String(repeating: "é", count: 123) + ".png"
        #expect(name.utf8.count == 250)
        let path = folder.appendingPathComponent(name).path
        try AtomicFile.write([3], to: path, replacing: false)
        #expect(FileManager.default.contents(atPath: path) == Data([3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [name])
    }
}
