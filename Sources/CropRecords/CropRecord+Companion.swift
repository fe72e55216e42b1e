import CropGeometry

/// A companion image in a record: `"companion": {"width","height"}` gives
/// its size as displayed (whole pixels, 1 to 2^20) beside the photo, and
/// the answer's `companion` says how the crop cuts it
/// (``CompanionExpectation``). The companion is answered for records
/// without an `angle`.
extension CropRecord {
    /// The cut of the record's companion for `result` (nil without a
    /// companion; a companion with no grid beside the photo is refused when
    /// the record is read).
    public func companionCut(_ result: CropResult) -> CompanionCut<ImagePixels>? {
        guard let companion,
            let grid = CompanionGrid(imageSize: result.orientedSize, companionSize: companion)
        else { return nil }
        return grid.cut(result.rect)
    }

    /// `{"width","height"}`, whole numbers from 1 to 2^20.
    static func companionSize(_ value: JSONValue?) throws(CropRecordError)
        -> PixelSize<ImagePixels>?
    {
        guard let value else { return nil }
        var sides: [Int] = []
        for key in ["width", "height"] {
            guard case .number(_, let side)? = value[key], side == side.rounded(), side >= 1,
                side <= Double(CompanionGrid<ImagePixels>.maximumSide)
            else {
                throw CropRecordError(
                    description:
                        "companion must be an object {\"width\",\"height\"} of whole pixels from 1 to \(CompanionGrid<ImagePixels>.maximumSide)"
                )
            }
            sides.append(Int(side))
        }
        return PixelSize(width: sides[0], height: sides[1])
    }

    /// How a replay's `companion` (the contract's, or an app's under
    /// `result`) differs from the contract's cut.
    public static func companionMismatches(
        _ given: CompanionExpectation?, _ cut: CompanionCut<ImagePixels>?
    ) -> [String] {
        companionDifferences(given, cut).map { $0.summary }
    }

    /// ``companionMismatches(_:_:)`` as values.
    public static func companionDifferences(
        _ given: CompanionExpectation?, _ cut: CompanionCut<ImagePixels>?
    ) -> [RecordMismatch] {
        switch (given, cut) {
        case (nil, _): return []
        case (let given?, nil):
            return [
                RecordMismatch(
                    "companion", expected: given.json, actual: .null,
                    summary: "companion: the contract cuts no companion here")
            ]
        case (let given?, let cut?): return given.differences(CompanionExpectation(cut))
        }
    }

    /// `"companion"` for a mapped result of a record with a companion.
    func companionMember(_ result: CropResult) -> JSONValue.Member? {
        companionCut(result).map { .init("companion", CompanionExpectation($0).json) }
    }
}

/// A companion's cut as records carry it: the companion rect the crop
/// covers, in companion pixels (`x·sx, y·sy, w·sx, h·sy`, fractions where
/// the crop is off the companion's grid), and its output size `W'`×`H'`.
///
/// ```json
/// "companion": {"x": 250.25, "y": 250, "width": 300, "height": 225,
///               "outputWidth": 300, "outputHeight": 225}
/// ```
///
/// The output size is compared exactly; the rect's numbers to within 2^-30
/// of a companion pixel (a `Double` cannot hold every fraction the
/// contract gives, and no sampler tells the difference).
public struct CompanionExpectation: Hashable, Sendable {
    /// The covered rect's left edge, in companion pixels.
    public var x: Double
    /// The covered rect's top edge.
    public var y: Double
    /// The covered rect's width.
    public var width: Double
    /// The covered rect's height.
    public var height: Double
    /// The companion's output width, `W'`.
    public var outputWidth: Int
    /// The companion's output height, `H'`.
    public var outputHeight: Int

    /// The contract's answer for `cut`.
    public init(_ cut: CompanionCut<ImagePixels>) {
        let (m, p, r) = (cut.grid.companionSize, cut.grid.imageSize, cut.rect)
        func scaled(_ v: Int, _ to: Int, _ from: Int) -> Double {
            Double(v * to) / Double(from)
        }
        x = scaled(r.x, m.width, p.width)
        y = scaled(r.y, m.height, p.height)
        width = scaled(r.width, m.width, p.width)
        height = scaled(r.height, m.height, p.height)
        outputWidth = cut.size.width
        outputHeight = cut.size.height
    }

    /// Reads `{"x","y","width","height","outputWidth","outputHeight"}`.
    ///
    /// - Throws: ``CropRecordError`` naming what is missing.
    public init(json value: JSONValue) throws(CropRecordError) {
        var numbers: [Double] = []
        for key in ["x", "y", "width", "height", "outputWidth", "outputHeight"] {
            guard case .number(_, let number)? = value[key], number.isFinite else {
                throw CropRecordError(
                    description:
                        "companion must be an object with numbers x, y, width, height, outputWidth, outputHeight"
                )
            }
            numbers.append(number)
        }
        guard numbers[4] == numbers[4].rounded(), numbers[5] == numbers[5].rounded(),
            abs(numbers[4]) <= 1e15, abs(numbers[5]) <= 1e15
        else {
            throw CropRecordError(
                description: "companion.outputWidth and outputHeight must be whole numbers")
        }
        (x, y, width, height) = (numbers[0], numbers[1], numbers[2], numbers[3])
        (outputWidth, outputHeight) = (Int(numbers[4]), Int(numbers[5]))
    }

    /// `{"x","y","width","height","outputWidth","outputHeight"}`.
    public var json: JSONValue {
        .object([
            .init("x", .number(x)), .init("y", .number(y)), .init("width", .number(width)),
            .init("height", .number(height)), .init("outputWidth", .number(outputWidth)),
            .init("outputHeight", .number(outputHeight)),
        ])
    }

    /// How this answer differs from the contract's: one line a field.
    public func mismatches(_ contract: CompanionExpectation) -> [String] {
        differences(contract).map { $0.summary }
    }

    /// ``mismatches(_:)`` as values.
    public func differences(_ contract: CompanionExpectation) -> [RecordMismatch] {
        var problems: [RecordMismatch] = []
        for (name, given, want) in [
            ("x", x, contract.x), ("y", y, contract.y), ("width", width, contract.width),
            ("height", height, contract.height),
        ] where !(abs(given - want) <= 0x1p-30 * max(1, abs(want))) {
            problems.append(.number("companion.\(name)", expected: want, actual: given))
        }
        for (name, given, want) in [
            ("outputWidth", outputWidth, contract.outputWidth),
            ("outputHeight", outputHeight, contract.outputHeight),
        ] where given != want {
            problems.append(
                .number("companion.\(name)", expected: Double(want), actual: Double(given)))
        }
        return problems
    }
}
