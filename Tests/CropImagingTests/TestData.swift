import Foundation

/// The shared conformance corpora, read in place: `$CROPKIT_TESTDATA`, or
/// `../shared/testdata` beside the package.
enum TestData {
    static let root: URL? = {
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

    /// Says why a test is skipped when the corpora are absent.
    static func skipReason(_ test: String) -> String? {
        guard root == nil else { return nil }
        let reason =
            "\(test): skipped: test data not found (set CROPKIT_TESTDATA or place it at ../shared/testdata)"
        print(reason)
        return reason
    }

    /// Every file under `folder` with one of `extensions` (any case), sorted.
    static func files(under folder: String, extensions: Set<String>? = ["png"]) -> [String] {
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

    static func path(_ relative: String) -> String {
        root!.appendingPathComponent(relative).path
    }

    /// The expected outcomes (libpng 1.6.39 / libjpeg-turbo 2.1.5) by path.
    struct Expectation {
        var status: String
        var width: Int?
        var height: Int?
        var hash: String?
        var message: String
    }

    static let expectations: [String: Expectation] = {
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

    /// A fresh temporary folder.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cropkit-imaging-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
