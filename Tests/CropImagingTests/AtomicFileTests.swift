import CropImaging
import CropKitTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct AtomicFileTests {
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
}
