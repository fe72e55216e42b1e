import Foundation
import Testing

/// Outside `Sources/CropImaging/Formats/` nothing branches on an image
/// format: a format's knowledge lives in its folder, and the registry, the
/// readers' and writers' protocols and the one report shape carry it
/// everywhere else. The sources are read as text and every line that asks
/// which format a file, a header, a report or an output is (a cast to a
/// format's header type, a case or comparison of a format value or name)
/// is a finding.
@Suite struct FormatRoomsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// What asks which format something is.
    static let patterns: [String] = [
        #"as\? (PNG|JPEG|HEIF|WebP|AVIF)FileInfo"#, #"is (PNG|JPEG|HEIF|WebP|AVIF)FileInfo"#,
        #"case \.(png|jpeg|heif|webp|avif)\b"#, #"[!=]= \.(png|jpeg|heif|webp|avif)\b"#,
        #"format [!=]= ""#, #"case "(png|jpeg|jpg|heic|heif|webp|avif)""#,
        #"\.name [!=]= "(png|jpeg|heic|webp|avif)""#, #"report\.(png|jpeg|heif|webp)\b"#,
    ]

    @Test func nothingOutsideFormatsAsksWhichFormatItIs() throws {
        let formats = Self.sources.appendingPathComponent("CropImaging/Formats").path + "/"
        let patterns = try Self.patterns.map { try Regex($0) }
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.sources.path)
            .filter { $0.hasSuffix(".swift") }
            .map { Self.sources.appendingPathComponent($0).path }
            .filter { !$0.hasPrefix(formats) }
        #expect(files.count > 50, "the sources were not found")
        var findings: [String] = []
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if patterns.contains(where: { line.contains($0) }) {
                    findings.append(
                        "\(file.dropFirst(Self.sources.path.count + 1)):\(number + 1): \(line)")
                }
            }
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }
}
