import CropGeometry
import CropRecords

/// What ``CropVectors/generate(_:)`` makes: how many vectors, from which
/// seed, over which content modes, orientations and zoom.
public struct VectorOptions: Hashable, Sendable {
    /// How many vectors (default 1000).
    public var count: Int
    /// The seed: the same seed gives the same vectors, byte for byte, on
    /// every platform.
    public var seed: UInt64
    /// The content modes drawn from (default `aspectFit` only, the
    /// article's case).
    public var modes: [ContentMode]
    /// The EXIF orientations drawn from (default `up` only).
    public var orientations: [EXIFOrientation]
    /// Whether views are zoomed and panned (the ``VectorCategory/zoomAndPan``
    /// category; default off).
    public var zoom: Bool

    /// Options for `count` vectors from `seed`; the defaults are the
    /// article's setting: aspect fit, upright photos, no zoom, which a
    /// function of the article's signature can answer.
    public init(
        count: Int = 1000, seed: UInt64 = 1, modes: [ContentMode] = [.aspectFit],
        orientations: [EXIFOrientation] = [.up], zoom: Bool = false
    ) {
        self.count = count
        self.seed = seed
        self.modes = modes.isEmpty ? [.aspectFit] : modes
        self.orientations = orientations.isEmpty ? [.up] : orientations
        self.zoom = zoom
    }

    /// The categories these options give, in order: ``VectorCategory/zoomAndPan``
    /// only with ``zoom``, ``VectorCategory/orientation`` only with an
    /// orientation other than `up`.
    public var categories: [VectorCategory] {
        VectorCategory.allCases.filter {
            switch $0 {
            case .zoomAndPan: zoom
            case .orientation: orientations.contains { $0 != .up }
            default: true
            }
        }
    }
}

/// One test vector: a mapping, its category, and the contract's answer.
///
/// Its ``jsonLine`` is a record of the record format with `expected` (the
/// contract's answer: the pixel rect in the image as seen, with `stored`
/// when the orientation is not 1, or `null` when the mapping refuses) and
/// `category`: what `cropkit cases` prints, what `cropkit replay` checks.
public struct CropVector: Hashable, Sendable {
    /// What it exercises.
    public let category: VectorCategory
    /// The mapping's inputs.
    public let request: CropRequest
    /// The contract's answer.
    public let expected: Result<CropResult, CropRejection>

    /// A vector for `request`, its answer computed by the contract.
    public init(category: VectorCategory, request: CropRequest) {
        self.category = category
        self.request = request
        expected = request.result()
    }

    /// The vector as a record: the request's members, `expected`, then
    /// `category`.
    public var record: CropRecord {
        CropRecord(
            request: request, expected: CropRecord.Expectation(expected),
            extra: [.init("category", .string(category.rawValue))])
    }

    /// The record as one line of JSON Lines.
    public var jsonLine: String { record.json.text }

    /// Whether a function of the article's signature (pixel size, view
    /// size, selection) can answer it: aspect fit, upright, unzoomed.
    public var fitsArticleSignature: Bool {
        request.mode == .aspectFit && request.orientation == .up && request.zoom == .identity
            && request.angle == 0
    }
}
