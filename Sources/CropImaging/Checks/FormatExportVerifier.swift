import CropGeometry
import CropRecords
import CropTestKit

/// An export verifier whose fixture is made in its own format and whose
/// crops are written in it (``JPEGExportVerifier``, ``WebPExportVerifier``):
/// what `cropkit verify --format` and `cropkit replay --export --format`
/// run for a format other than PNG.
public protocol FormatExportVerifier: Sendable {
    /// Makes the fixture for `sourceSize`.
    ///
    /// - Throws: ``ImagingError`` past the format's limits, or without its
    ///   library.
    init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError)
    /// The stored size of the fixture.
    var sourceSize: PixelSize<StoredPixels> { get }
    /// The most pixels of a fixture.
    static var maximumPixels: Int { get }
    /// The extension of the files it writes: "jpg", "webp".
    static var fileExtension: String { get }
    /// The format ``CompanionExportVerifier`` checks a gain map in beside
    /// this one's checks: its own where its crops carry one, else JPEG.
    static var companionFormat: ImageFormat { get }
    /// The checks of `result`'s crop; the output's bytes go to `path` too
    /// when there is one.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    func check(_ result: CropResult, writingTo path: String?) throws(ImagingError)
        -> [ExportCheck]
}

/// What the format verifiers share: a mapping's crop of a fixture exported
/// through the real pipeline, and the checks every format makes of it.
enum FixtureExport {
    /// Refuses a fixture of more than `maximum` pixels (it is held decoded).
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)``.
    static func checkPixels(of size: PixelSize<StoredPixels>, maximum: Int) throws(ImagingError) {
        let (count, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, count <= maximum else {
            throw .limitExceeded(.fixturePixels, limit: maximum, actual: overflow ? Int.max : count)
        }
    }

    /// `result`'s crop of `fixture` written as `format` in memory (and to
    /// `path` too, atomically, when there is one), opened again, and the
    /// export's report.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    static func export(
        _ result: CropResult, of fixture: ImageSource, as format: OutputFormat,
        writingTo path: String?
    ) throws(ImagingError) -> (output: ImageSource, report: CropReport) {
        let job = CropJob(
            region: .pixels(result.rect), orientation: result.orientation, format: format)
        let plan: CropPlan
        do throws(CropPlanError) {
            plan = try job.plan(for: fixture)
        } catch {
            preconditionFailure("a result of the fixture's size has no plan: \(error)")
        }
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        if let path { try AtomicFile.write(sink.bytes, to: path, replacing: true) }
        return (try ImageSource(ImageInput(bytes: sink.bytes, name: "exported crop")), report)
    }

    /// The checks every format verifier makes of `result`'s crop of
    /// `fixture` written as `format`: the crop exported through the real
    /// pipeline (its bytes to `path` too), its size (by `size`: the upright
    /// rect's, or the stored rect's for a format that keeps the orientation
    /// tag), then, when the size holds, the format's own checks (`checks`,
    /// given the output and its report), and the leak check last.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    static func checks(
        _ result: CropResult, of fixture: ImageSource, sourceSize: PixelSize<StoredPixels>,
        as format: OutputFormat, writingTo path: String?,
        size: (ImageSource, CropResult) -> ExportCheck = uprightSize,
        _ checks: (ImageSource, CropReport) throws(ImagingError) -> [ExportCheck]
    ) throws(ImagingError) -> [ExportCheck] {
        precondition(result.sourceSize == sourceSize, "the result is for another source size")
        let (output, report) = try export(result, of: fixture, as: format, writingTo: path)
        let sized = size(output, result)
        guard sized.passed else { return [sized] }
        return [sized] + (try checks(output, report)) + [try leaks(output)]
    }

    /// The size check of an output written upright: its size is the
    /// mapping's rect as seen.
    static func uprightSize(_ output: ImageSource, _ result: CropResult) -> ExportCheck {
        let seen = result.orientation.orientedSize(result.stored.size)
        let size = output.storedSize
        return ExportCheck(
            name: "size", passed: size.width == seen.width && size.height == seen.height,
            detail:
                "\(size.width)x\(size.height) upright, mapped \(seen.width)x\(seen.height) as seen",
            measured: [
                .init("stored", ExportCheck.size(size.width, size.height)),
                .init("mapped", ExportCheck.size(seen.width, seen.height)),
            ])
    }

    /// The leak check of an output: nothing of the uncropped photo.
    ///
    /// - Throws: ``ImagingError`` when the output cannot be read.
    static func leaks(_ output: ImageSource) throws(ImagingError) -> ExportCheck {
        let leaks = try LeakCheck.findings(in: output)
        return ExportCheck(
            name: "leaks", passed: leaks.isEmpty,
            detail: leaks.isEmpty
                ? "nothing of the uncropped photo"
                : leaks.map(\.description).joined(separator: "; "),
            measured: [.init("findings", .array(leaks.map(\.json)))])
    }
}

extension FormatExportVerifier {
    /// JPEG, whose crops carry an MPF gain map.
    public static var companionFormat: ImageFormat { .jpeg }
}

extension JPEGExportVerifier: FormatExportVerifier {
    /// "jpg".
    public static var fileExtension: String { "jpg" }
}

extension WebPExportVerifier: FormatExportVerifier {
    /// "webp".
    public static var fileExtension: String { "webp" }
}

/// The export verifiers of the formats other than PNG (whose export is
/// checked on the PNG fixtures themselves), found by an output format's
/// name: the one list the command line's `--format` reads.
public enum FormatExportVerifiers {
    /// Every verifier.
    public static let all: [any FormatExportVerifier.Type] = [
        JPEGExportVerifier.self, WebPExportVerifier.self, AVIFExportVerifier.self,
    ]

    /// The verifier of the output format named `name` (a name or extension:
    /// "jpeg", "jpg", "webp"), or `nil` when that format has none.
    public static func verifier(named name: String) -> (any FormatExportVerifier.Type)? {
        guard let format = OutputFormat(name: name) else { return nil }
        return all.first { OutputFormat(name: $0.fileExtension)?.name == format.name }
    }

    /// Whether the output format named `name` is checked on the PNG
    /// fixtures themselves, with no verifier of its own.
    public static func checksFixturesThemselves(_ name: String) -> Bool {
        OutputFormat(name: name)?.name == fixtureFormat
    }

    /// The format of the fixtures (PNG), checked without a verifier.
    static let fixtureFormat = "png"

    /// The names an export format is chosen by: the fixtures', then each
    /// verifier's format's.
    public static var names: [String] {
        [fixtureFormat] + all.compactMap { OutputFormat(name: $0.fileExtension)?.name }
    }
}
