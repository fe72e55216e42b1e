import CTestHooks
import Foundation

/// The shared conformance corpora, read in place: `$CROPKIT_TESTDATA`, or
/// `../shared/testdata` beside the package. Tests that need them are marked
/// `@Test(.enabled(if: TestData.isPresent, …))`, so a run without them
/// reports them as skipped, never as passed.
public enum TestData {
    /// The corpus folder, or `nil` when it is absent.
    public static let root: URL? = {
        if let override = ProcessInfo.processInfo.environment["CROPKIT_TESTDATA"], !override.isEmpty
        {
            let url = URL(fileURLWithPath: override)
            return FileManager.default.fileExists(atPath: url.path) ? url : nil
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
        let shared = package.deletingLastPathComponent().appendingPathComponent("shared/testdata")
        return FileManager.default.fileExists(atPath: shared.path) ? shared : nil
    }()

    /// Whether the corpora are there; the condition of every test that reads
    /// them (and only that: each `false` counts a test skipped, which the
    /// run's closing line reports).
    public static var isPresent: Bool {
        guard root != nil else {
            ck_test_skipped("without the conformance corpora")
            return false
        }
        return true
    }

    /// What a skipped test says.
    public static let absent =
        "test data not found (set CROPKIT_TESTDATA or place it at ../shared/testdata)"

    /// Every file under `folder` with one of `extensions` (any case), sorted;
    /// `nil` extensions take every file.
    public static func files(under folder: String, extensions: Set<String>? = ["png"]) -> [String] {
        guard let root else { return [] }
        let base = root.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var out: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let path = base.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else {
                continue
            }
            if let extensions,
                !extensions.contains((relative as NSString).pathExtension.lowercased())
            {
                continue
            }
            out.append(folder + "/" + relative)
        }
        return out.sorted()
    }

    /// The absolute path of `relative` inside the corpora (which must be present).
    public static func path(_ relative: String) -> String {
        precondition(root != nil, "TestData.path needs the corpora; guard the test with isPresent")
        return (root ?? URL(fileURLWithPath: "/")).appendingPathComponent(relative).path
    }

    /// The absolute path of `relative` inside this repository (a script the
    /// tests run, say).
    public static func repositoryPath(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(relative).path
    }

    /// The expected outcome of one corpus file (libpng 1.6.39 / libjpeg-turbo 2.1.5).
    public struct Expectation: Sendable {
        /// `ok` or the failure kind the table records.
        public var status: String
        /// The decoded width, when it decodes.
        public var width: Int?
        /// The decoded height, when it decodes.
        public var height: Int?
        /// The hash of the decoded pixels, when given.
        public var hash: String?
        /// The reference decoder's message.
        public var message: String
    }

    /// The expected outcomes by path.
    public static let expectations: [String: Expectation] = {
        guard let root else { return [:] }
        let tsv = root.appendingPathComponent("EXPECTED-libpng1.6.39-libjpeg-turbo2.1.5.tsv")
        guard let text = try? String(contentsOf: tsv, encoding: .utf8) else { return [:] }
        var out: [String: Expectation] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(
                String.init)
            guard fields.count >= 6 else { continue }
            out[fields[0]] = Expectation(
                status: fields[1], width: Int(fields[2]), height: Int(fields[3]),
                hash: fields[5] == "-" ? nil : fields[5], message: fields.count > 6 ? fields[6] : ""
            )
        }
        return out
    }()

    /// A fresh temporary folder; the caller removes it.
    public static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cropkit-test-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The CRC-32 of PNG chunks (ISO 3309), bit by bit: independent of the
    /// code under test.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
