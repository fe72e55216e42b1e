import CropGeometry

/// A face box in a record, as Apple's Vision framework gives one: `"face":
/// {"x","y","width","height"}`, normalized to the photo as seen (0 to 1
/// each way) with the origin at the **bottom-left** and y up. The answer's
/// `face` says where it lands in the crop, the same way (normalized to the
/// crop, bottom-left), or `null` when nothing of it is inside
/// (CropGeometry's `PlaceMapping.map(visionRect:)`). An app that draws
/// face boxes over its crop preview computes the same numbers; the face is
/// answered for records without an `angle`.
extension CropRecord {
    /// How far an app's face box may lie from the contract's, in each
    /// normalized number: a billionth of the crop's side, far below a
    /// pixel of any photo and far above `Double`'s rounding.
    public static let faceTolerance = 1e-9

    /// Where the record's face lands in the crop `result`, as Vision gives
    /// boxes; `nil` when it lands outside (or the record has no face).
    public func faceBox(_ result: CropResult) -> Rect<OutputPixels>? {
        face.flatMap { PlaceMapping(result).map(visionRect: $0) }
    }

    /// `{"x","y","width","height"}`: finite numbers, the sides not
    /// negative.
    static func faceRect(_ value: JSONValue?) throws(CropRecordError) -> Rect<ImagePixels>? {
        guard let value else { return nil }
        guard let n = faceNumbers(value), n[2] >= 0, n[3] >= 0 else {
            throw CropRecordError(
                description:
                    "face must be an object {\"x\",\"y\",\"width\",\"height\"} of finite numbers (normalized, origin at the bottom-left), the sides not negative"
            )
        }
        return Rect(x: n[0], y: n[1], width: n[2], height: n[3])
    }

    /// An expected or answered face: `null` (outside the crop) or a box.
    ///
    /// - Throws: ``CropRecordError`` naming the field.
    public static func faceAnswer(_ value: JSONValue, _ field: String) throws(CropRecordError)
        -> FaceAnswer
    {
        if case .null = value { return .outside }
        guard let n = faceNumbers(value) else {
            throw CropRecordError(
                description: "\(field) must be null or an object with numbers x, y, width, height")
        }
        return .box(Rect(x: n[0], y: n[1], width: n[2], height: n[3]))
    }

    private static func faceNumbers(_ value: JSONValue) -> [Double]? {
        var out: [Double] = []
        for key in ["x", "y", "width", "height"] {
            guard case .number(_, let number)? = value[key], number.isFinite else { return nil }
            out.append(number)
        }
        return out
    }

    /// How `given` (a record's `expected.face`, or an app's `result.face`)
    /// differs from the contract's box `contract`.
    public static func faceMismatches(_ given: FaceAnswer?, _ contract: Rect<OutputPixels>?)
        -> [String]
    {
        faceDifferences(given, contract).map { $0.summary }
    }

    /// ``faceMismatches(_:_:)`` as values.
    public static func faceDifferences(_ given: FaceAnswer?, _ contract: Rect<OutputPixels>?)
        -> [RecordMismatch]
    {
        switch (given, contract) {
        case (nil, _), (.outside?, nil): return []
        case (.outside?, let box?):
            return [
                RecordMismatch(
                    "face", expected: FaceAnswer.box(box).json, actual: .null,
                    summary: "face: expected \(faceText(box)), got null (outside the crop)")
            ]
        case (.box(let box)?, nil):
            return [
                RecordMismatch(
                    "face", expected: .null, actual: FaceAnswer.box(box).json,
                    summary: "face: expected null (outside the crop), got \(faceText(box))")
            ]
        case (.box(let got)?, let want?):
            let pairs = [
                ("x", got.x, want.x), ("y", got.y, want.y), ("width", got.width, want.width),
                ("height", got.height, want.height),
            ]
            return pairs.filter { !(abs($0.1 - $0.2) <= faceTolerance) }.map {
                .number("face.\($0.0)", expected: $0.2, actual: $0.1)
            }
        }
    }

    /// `"face"` for a mapped result of a record with a face: the box, or
    /// `null`.
    func faceMember(_ result: CropResult) -> JSONValue.Member? {
        guard face != nil else { return nil }
        return .init("face", FaceAnswer(faceBox(result)).json)
    }

    /// The contract's `expected` for this record, as a failure line
    /// carries it: the rect (with `stored`), or `null` when the mapping
    /// refuses; for a mapped result, with the companion's cut and the
    /// face's place when the record has them, so a replay checks those
    /// too.
    public func contractExpectation() -> JSONValue {
        let outcome = replay()
        let json = Expectation(outcome).json
        guard case .success(let result) = outcome, case .object(let rect) = json else {
            return json
        }
        let added = [companionMember(result), faceMember(result)].compactMap { $0 }
        return added.isEmpty ? json : .object(rect + added)
    }

    static func faceText(_ box: Rect<OutputPixels>) -> String {
        [box.x, box.y, box.width, box.height].map(jsonNumberText).joined(separator: ",")
    }
}

/// Where a record says a face lands in the crop: outside it (`null`), or a
/// box normalized to the crop with the origin at the bottom-left.
public enum FaceAnswer: Hashable, Sendable {
    /// Nothing of the face is inside the crop.
    case outside
    /// The face's box in the crop, as Vision gives boxes.
    case box(Rect<OutputPixels>)

    /// The answer for the contract's box `box` (`nil`: outside).
    public init(_ box: Rect<OutputPixels>?) {
        self = box.map(FaceAnswer.box) ?? .outside
    }

    /// `null` or `{"x","y","width","height"}`.
    public var json: JSONValue {
        switch self {
        case .outside: return .null
        case .box(let r): return rectJSON(r)
        }
    }

    /// The box, or `nil` outside the crop.
    public var box: Rect<OutputPixels>? {
        if case .box(let r) = self { return r }
        return nil
    }
}
