import CropImaging
import CropKitTestSupport
import Foundation
import Testing

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
}
