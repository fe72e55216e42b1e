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
    /// Whether photos carry a companion image (a gain map, a depth map, a
    /// stereo eye) whose cut the answer gives (the
    /// ``VectorCategory/companion`` category; default off).
    public var companions: Bool
    /// Whether photos carry a face box, as Vision gives one, whose place in
    /// the crop the answer gives (the ``VectorCategory/faceBox`` category;
    /// default off).
    public var faces: Bool

    /// Options for `count` vectors from `seed`; the defaults are the
    /// article's setting: aspect fit, upright photos, no zoom, which a
    /// function of the article's signature can answer.
    public init(
        count: Int = 1000, seed: UInt64 = 1, modes: [ContentMode] = [.aspectFit],
        orientations: [EXIFOrientation] = [.up], zoom: Bool = false, companions: Bool = false,
        faces: Bool = false
    ) {
        self.count = count
        self.seed = seed
        self.modes = modes.isEmpty ? [.aspectFit] : modes
        self.orientations = orientations.isEmpty ? [.up] : orientations
        self.zoom = zoom
        self.companions = companions
        self.faces = faces
    }

    /// The categories these options give, in order: ``VectorCategory/zoomAndPan``
    /// only with ``zoom``, ``VectorCategory/orientation`` only with an
    /// orientation other than `up`, ``VectorCategory/companion`` only with
    /// ``companions``, ``VectorCategory/faceBox`` only with ``faces``.
    public var categories: [VectorCategory] {
        VectorCategory.allCases.filter {
            switch $0 {
            case .zoomAndPan: zoom
            case .companion: companions
            case .faceBox: faces
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
    /// The size, as displayed, of a companion image beside the photo, if
    /// the vector has one.
    public let companion: PixelSize<ImagePixels>?
    /// A face box in the photo as seen, as Apple's Vision framework gives
    /// it (normalized, origin at the bottom-left), if the vector has one.
    public let face: Rect<ImagePixels>?

    /// A vector for `request` (with a companion image of `companion` size,
    /// as displayed, beside its photo, and a face box `face` as Vision
    /// gives it), its answer computed by the contract.
    public init(
        category: VectorCategory, request: CropRequest, companion: PixelSize<ImagePixels>? = nil,
        face: Rect<ImagePixels>? = nil
    ) {
        self.category = category
        self.request = request
        self.companion = companion
        self.face = face
        expected = request.result()
    }

    /// Where the face lands in the crop, by the contract (CropGeometry's
    /// `PlaceMapping.map(visionRect:)`), when the vector has a face and the
    /// mapping gives a rect: a box normalized to the crop with the origin
    /// at the bottom-left, or `outside`.
    public var expectedFace: FaceAnswer? {
        guard let face, case .success(let result) = expected else { return nil }
        return FaceAnswer(PlaceMapping(result).map(visionRect: face))
    }

    /// The companion's cut, by the contract, when the vector has a
    /// companion and the mapping gives a rect.
    public var expectedCompanion: CompanionCut<ImagePixels>? {
        guard let companion, case .success(let result) = expected,
            let grid = CompanionGrid(imageSize: result.orientedSize, companionSize: companion)
        else { return nil }
        return grid.cut(result.rect)
    }

    /// How an app's face box for this vector (where it says the face lands
    /// in the crop, normalized to the crop with the origin at the
    /// bottom-left, `nil` for outside) differs from the contract's, each
    /// number to within `CropRecord.faceTolerance`; empty when it agrees
    /// or the vector has no face or no crop.
    public func faceMismatches(_ answer: Rect<OutputPixels>?) -> [String] {
        guard let expectedFace else { return [] }
        return CropRecord.faceMismatches(FaceAnswer(answer), expectedFace.box)
    }

    /// The vector as a record: the request's members, `companion`, `face`,
    /// `expected` (with the companion's cut and the face's box), then
    /// `category`.
    public var record: CropRecord {
        CropRecord(
            request: request, expected: CropRecord.Expectation(expected), companion: companion,
            expectedCompanion: expectedCompanion.map(CompanionExpectation.init), face: face,
            expectedFace: expectedFace,
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
