import CropGeometry

/// One failure record, a line of JSON Lines: the numbers of a mapping, what
/// it should give, and whatever else the app wrote.
///
/// Replaying a record needs no photo: only the pixel size matters. A record
/// is one immutable value: the request parsed from it, and the JSON object
/// it came from, kept verbatim (member order, number text, unknown fields)
/// so a replay can echo it as it was given. Parsing to `Double` and writing
/// back would change `0.1` into `0.1000000000000000055511151231257827`'s
/// shortest form at best and drop an app's own fields at worst; a record
/// tool must hand back what it was handed.
public struct CropRecord: Hashable, Sendable {
    /// What the record says the answer should be.
    public enum Expectation: Hashable, Sendable {
        /// The mapping must reject the input.
        case rejected
        /// The mapping must give this rect, and this stored rect when given.
        case rect(x: Double, y: Double, width: Double, height: Double, stored: StoredExpectation?)
    }

    /// An expected rect in the stored grid.
    public struct StoredExpectation: Hashable, Sendable {
        /// The expected stored rect's left edge.
        public var x: Double
        /// The expected stored rect's top edge.
        public var y: Double
        /// The expected stored rect's width.
        public var width: Double
        /// The expected stored rect's height.
        public var height: Double
    }

    /// The request (its orientation is `up` when the record's is not 1 to 8:
    /// see ``orientationValue``).
    public let request: CropRequest
    /// The orientation as the record gives it, validated on replay.
    public let orientationValue: Double
    /// The aspect ratio the record snaps to, if any (`"aspect"`).
    public let aspect: AspectChoice?
    /// What the record expects, if it says.
    public let expected: Expectation?
    /// The JSON object the record came from, verbatim.
    public let json: JSONValue
    /// The size, as displayed, of a companion image beside the photo, when
    /// the record gives one (`"companion"`).
    public let companion: PixelSize<ImagePixels>?
    /// What the record's `expected.companion` says the companion's cut is,
    /// when it says.
    public let expectedCompanion: CompanionExpectation?
    /// A face box in the photo as seen, as Apple's Vision framework gives
    /// it (normalized, origin at the bottom-left), when the record gives
    /// one (`"face"`; see ``faceBox(_:)``).
    public let face: Rect<ImagePixels>?
    /// What the record's `expected.face` says of where the face lands, when
    /// it says.
    public let expectedFace: FaceAnswer?

    /// The record's mapping: its rejection, checked in the contract's order,
    /// or its result (snapped to ``aspect`` when it has one).
    public func replay() -> Result<CropResult, CropRejection> {
        if let orientation = EXIFOrientation(exactly: orientationValue) {
            var request = request
            request.orientation = orientation
            return Result { () throws(CropRejection) in try request.map(aspect: aspect) }
        }
        let withoutOrientation = request.result()
        if case .failure = withoutOrientation { return withoutOrientation }
        if !orientationValue.isFinite { return .failure(.nonFinite(field: "orientation")) }
        return .failure(.orientationOutOfRange(orientationValue))
    }

    /// What replaying a record gives: the mapping's answer for an unturned
    /// record, the straightened crop for a record with an `angle`.
    public enum Answer: Hashable, Sendable {
        /// The mapping contract's answer (`angle` absent or 0).
        case mapped(Result<CropResult, CropRejection>)
        /// The straightened crop's answer: its output rect `O` in the
        /// turned frame is what `expected` describes.
        case turned(Result<StraightenedCrop, CropRejection>)

        /// The rejection, if the record was rejected.
        public var rejection: CropRejection? {
            switch self {
            case .mapped(.failure(let rejection)), .turned(.failure(let rejection)): rejection
            default: nil
            }
        }
    }

    /// The record's answer: ``replay()`` for an unturned record; for a
    /// record with an `angle`, `CropRequest.straightened(size:)` (with
    /// ``aspect``, the output rect is then narrowed to the exact ratio
    /// inside itself, by the same nearest-rect rule).
    public func answer() -> Answer {
        guard request.angle != 0 else { return .mapped(replay()) }
        guard let orientation = EXIFOrientation(exactly: orientationValue) else {
            if case .failure(let rejection) = request.result(),
                rejection != .turned(angle: request.angle)
            {
                return .turned(.failure(rejection))
            }
            if !orientationValue.isFinite {
                return .turned(.failure(.nonFinite(field: "orientation")))
            }
            return .turned(.failure(.orientationOutOfRange(orientationValue)))
        }
        var request = request
        request.orientation = orientation
        return .turned(
            Result { () throws(CropRejection) in
                let crop = try request.straightened()
                guard let aspect else { return crop }
                let ratio: AspectRatio?
                switch aspect {
                case .ratio(let given): ratio = given
                case .source:
                    let seen = crop.frame.imageSize
                    ratio = AspectRatio(width: seen.width, height: seen.height)
                }
                let within = PixelRect<StraightenedPixels>(
                    x: 0, y: 0, width: crop.rect.width, height: crop.rect.height)
                guard let ratio else { throw .noImagePixels }
                guard let fitted = within.fitted(to: ratio, within: crop.rect.size) else {
                    throw .aspectRatioDoesNotFit(ratio)
                }
                return try StraightenedCrop(
                    frame: crop.frame,
                    rect: PixelRect(
                        x: crop.rect.x + fitted.x, y: crop.rect.y + fitted.y, width: fitted.width,
                        height: fitted.height), orientation: orientation)
            })
    }

    /// How `answer` differs from ``expected`` (see ``mismatches(_:)``); a
    /// turned answer is compared by its output rect, and a `stored`
    /// expectation does not apply to it.
    public func mismatches(_ answer: Answer) -> [String] { differences(answer).map { $0.summary } }

    /// ``mismatches(_:)-(Answer)`` as values: each field, what was expected
    /// and what the answer gives.
    public func differences(_ answer: Answer) -> [RecordMismatch] {
        switch answer {
        case .mapped(let outcome): return differences(outcome)
        case .turned(let outcome):
            guard let expected else { return [] }
            switch (expected, outcome) {
            case (.rejected, .failure): return []
            case (.rejected, .success(let crop)):
                return [
                    RecordMismatch(
                        "result", expected: .null, actual: crop.rect.json,
                        summary: "expected rejection, got output rect \(crop.rect)")
                ]
            case (.rect(let x, let y, let w, let h, _), .failure(let rejection)):
                return [Self.rejected(rejection, expected: [x, y, w, h])]
            case (.rect(let x, let y, let w, let h, _), .success(let crop)):
                let r = crop.rect
                return Self.rectDifferences(
                    "", expected: [x, y, w, h], actual: [r.x, r.y, r.width, r.height])
            }
        }
    }

    /// The fields of a rect (`x`, `y`, `width`, `height`, each after
    /// `prefix`) whose `actual` value is not the `expected` one.
    private static func rectDifferences(_ prefix: String, expected: [Double], actual: [Int])
        -> [RecordMismatch]
    {
        var found: [RecordMismatch] = []
        for (index, name) in ["x", "y", "width", "height"].enumerated()
        where expected[index] != Double(actual[index]) {
            found.append(
                .number(prefix + name, expected: expected[index], actual: Double(actual[index])))
        }
        return found
    }

    /// A rect expected (`x`, `y`, `width`, `height`), a rejection given.
    private static func rejected(_ rejection: CropRejection, expected rect: [Double])
        -> RecordMismatch
    {
        RecordMismatch(
            "result",
            expected: .object(
                zip(["x", "y", "width", "height"], rect).map { .init($0, .number($1)) }),
            actual: .object([.init("rejection", .string("\(rejection.code)"))]),
            summary: "expected a rect, got rejection \(rejection.code)")
    }

    /// The request with the record's orientation when it is valid (else
    /// `up`): what a diagram of the record draws.
    public var orientedRequest: CropRequest {
        var request = request
        if let orientation = EXIFOrientation(exactly: orientationValue) {
            request.orientation = orientation
        }
        return request
    }

    /// Whether the record gives an orientation of its own.
    public var hasOrientation: Bool { json["orientation"] != nil }

    /// This record with `orientation` where it gives none (the photo's own,
    /// for a record that came without it), as if it had said so.
    public func defaultingOrientation(to orientation: EXIFOrientation) -> CropRecord {
        guard !hasOrientation, case .object(let members) = json else { return self }
        var request = request
        request.orientation = orientation
        return CropRecord(
            request: request, orientationValue: Double(orientation.rawValue), aspect: aspect,
            expected: expected,
            json: .object(members + [.init("orientation", .number(orientation.rawValue))]),
            companion: companion, expectedCompanion: expectedCompanion, face: face,
            expectedFace: expectedFace)
    }

    private init(
        request: CropRequest, orientationValue: Double, aspect: AspectChoice?,
        expected: Expectation?, json: JSONValue, companion: PixelSize<ImagePixels>?,
        expectedCompanion: CompanionExpectation?, face: Rect<ImagePixels>?,
        expectedFace: FaceAnswer?
    ) {
        self.request = request
        self.orientationValue = orientationValue
        self.aspect = aspect
        self.expected = expected
        self.json = json
        self.companion = companion
        self.expectedCompanion = expectedCompanion
        self.face = face
        self.expectedFace = expectedFace
    }

    /// How `outcome` differs from ``expected``: empty when it matches or
    /// when the record expects nothing.
    public func mismatches(_ outcome: Result<CropResult, CropRejection>) -> [String] {
        differences(outcome).map { $0.summary }
    }

    /// ``mismatches(_:)-(Result<CropResult,CropRejection>)`` as values.
    public func differences(_ outcome: Result<CropResult, CropRejection>) -> [RecordMismatch] {
        guard let expected else { return [] }
        switch (expected, outcome) {
        case (.rejected, .failure): return []
        case (.rejected, .success(let result)):
            return [
                RecordMismatch(
                    "result", expected: .null, actual: result.rect.json,
                    summary: "expected rejection, got \(result.rect)")
            ]
        case (.rect(let x, let y, let w, let h, _), .failure(let rejection)):
            return [Self.rejected(rejection, expected: [x, y, w, h])]
        case (.rect(let x, let y, let w, let h, let stored), .success(let result)):
            let r = result.rect
            var problems = Self.rectDifferences(
                "", expected: [x, y, w, h], actual: [r.x, r.y, r.width, r.height])
            if let stored {
                let s = result.stored
                problems += Self.rectDifferences(
                    "stored.", expected: [stored.x, stored.y, stored.width, stored.height],
                    actual: [s.x, s.y, s.width, s.height])
            }
            return problems + Self.companionDifferences(expectedCompanion, companionCut(result))
                + (face == nil ? [] : Self.faceDifferences(expectedFace, faceBox(result)))
        }
    }
}

extension EXIFOrientation {
    /// The orientation whose tag value is exactly `value`, if any.
    public init?(exactly value: Double) {
        guard value.isFinite, value == value.rounded(), value >= 1, value <= 8 else { return nil }
        self.init(rawValue: Int(value))
    }
}

/// A line that is not a valid record, and why.
public struct CropRecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the field.
    public var description: String

    /// An error saying `description`.
    public init(description: String) {
        self.description = description
    }
}

extension CropRecord {
    /// Builds a record for `request`, as an app writes one when a crop
    /// fails: its numbers, `aspect` when given, `expected` when given, then
    /// `extra`.
    ///
    /// With `companion`, the record gives a companion image of that size
    /// (as displayed), and `expectedCompanion` its cut under `expected`;
    /// with `face`, a face box as Vision gives it, and `expectedFace` where
    /// it lands.
    public init(
        request: CropRequest, aspect: AspectChoice? = nil, expected: Expectation?,
        companion: PixelSize<ImagePixels>? = nil, expectedCompanion: CompanionExpectation? = nil,
        face: Rect<ImagePixels>? = nil, expectedFace: FaceAnswer? = nil,
        extra: [JSONValue.Member] = []
    ) {
        var members: [JSONValue.Member] = [
            .init("source", sizeJSON(request.sourceSize.width, request.sourceSize.height)),
            .init("viewport", sizeJSON(request.viewport.width, request.viewport.height)),
            .init("selection", rectJSON(request.selection)),
            .init("mode", .string(request.mode.rawValue)),
        ]
        if request.imageScale != 1 {
            members.append(.init("imageScale", .number(request.imageScale)))
        }
        if request.zoom != .identity {
            members.append(
                .init(
                    "zoom",
                    .object([
                        .init("scale", .number(request.zoom.scale)),
                        .init(
                            "offset",
                            .object([
                                .init("x", .number(request.zoom.offset.dx)),
                                .init("y", .number(request.zoom.offset.dy)),
                            ])),
                    ])))
        }
        if request.orientation != .up {
            members.append(.init("orientation", .number(request.orientation.rawValue)))
        }
        if let aspect { members.append(.init("aspect", .string(aspect.description))) }
        if request.angle != 0 { members.append(.init("angle", JSONValue.number(request.angle))) }
        if let companion {
            members.append(
                .init(
                    "companion",
                    .object([
                        .init("width", .number(companion.width)),
                        .init("height", .number(companion.height)),
                    ])))
        }
        if let face {
            members.append(.init("face", rectJSON(face)))
        }
        // The companion's cut and the face's box are written, and kept,
        // beside an expected rect.
        var keptCompanion: CompanionExpectation?
        var keptFace: FaceAnswer?
        if let expected {
            var json = expected.json
            if let expectedCompanion, case .object(let rect) = json {
                json = .object(rect + [.init("companion", expectedCompanion.json)])
                keptCompanion = expectedCompanion
            }
            if let expectedFace, face != nil, case .object(let rect) = json {
                json = .object(rect + [.init("face", expectedFace.json)])
                keptFace = expectedFace
            }
            members.append(.init("expected", json))
        }
        self.init(
            request: request, orientationValue: Double(request.orientation.rawValue),
            aspect: aspect, expected: expected, json: .object(members + extra),
            companion: companion, expectedCompanion: keptCompanion, face: face,
            expectedFace: keptFace)
    }

    /// Parses one line of JSON Lines.
    ///
    /// - Throws: ``CropRecordError`` naming the field that is missing or malformed.
    public init(jsonLine: String) throws(CropRecordError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: jsonLine)
        } catch {
            throw CropRecordError(description: "not valid JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// Parses one line of JSON Lines given as UTF-8 bytes.
    ///
    /// - Throws: ``CropRecordError`` naming the field that is missing or malformed.
    public init(jsonLine bytes: UnsafeBufferPointer<UInt8>) throws(CropRecordError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsingUTF8: bytes)
        } catch {
            throw CropRecordError(description: "not valid JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// Reads a record from a parsed JSON object, keeping the object
    /// verbatim.
    ///
    /// - Parameters:
    ///   - value: The JSON object of one record.
    ///   - sourceGivenBy: When not `nil`, the object may leave out
    ///     `source` because something else gives it (a manifest line's image,
    ///     named here); the request's source size is then 1x1 until replaced.
    /// - Throws: ``CropRecordError`` naming the field that is missing or malformed.
    public init(json value: JSONValue, sourceGivenBy: String? = nil) throws(CropRecordError) {
        guard case .object(let members) = value else {
            throw CropRecordError(description: "a record must be a JSON object")
        }
        // One pass over the members (the first of a name counts), not one
        // search per field: replay reads hundreds of thousands a second.
        // A field given twice is ambiguous (JSON leaves it to the reader,
        // and readers differ), so the record is refused.
        var fields = RecordFields()
        func set(_ field: inout JSONValue?, _ member: JSONValue.Member) throws(CropRecordError) {
            guard field == nil else {
                throw CropRecordError(
                    description: "\(member.key) is given twice (ambiguous); give it once")
            }
            field = member.value
        }
        for member in members {
            switch member.key {
            case "source": try set(&fields.source, member)
            case "viewport": try set(&fields.viewport, member)
            case "selection": try set(&fields.selection, member)
            case "mode": try set(&fields.mode, member)
            case "imageScale": try set(&fields.imageScale, member)
            case "zoom": try set(&fields.zoom, member)
            case "orientation": try set(&fields.orientation, member)
            case "expected": try set(&fields.expected, member)
            case "aspect": try set(&fields.aspect, member)
            case "angle": try set(&fields.angle, member)
            case "companion": try set(&fields.companion, member)
            case "face": try set(&fields.face, member)
            default: break
            }
        }
        let source =
            sourceGivenBy != nil && fields.source == nil
            ? (1, 1) : try size(fields.source, "source")
        let viewport = try size(fields.viewport, "viewport")
        let selection = try rect(fields.selection, "selection")
        var mode = ContentMode.aspectFit
        if let modeValue = fields.mode {
            guard case .string(let name) = modeValue, let parsed = ContentMode(rawValue: name)
            else {
                let names = ContentMode.allCases.map { $0.rawValue }.joined(separator: ", ")
                throw CropRecordError(description: "mode must be one of \(names)")
            }
            mode = parsed
        }
        let imageScale =
            try fields.imageScale.map { v throws(CropRecordError) in try number(v, "imageScale") }
            ?? 1
        var zoom = Zoom.identity
        if let zoomValue = fields.zoom {
            guard case .object = zoomValue else {
                throw CropRecordError(
                    description:
                        "zoom must be an object {\"scale\":z,\"offset\":{\"x\":ox,\"y\":oy}}")
            }
            zoom.scale =
                try zoomValue["scale"].map { v throws(CropRecordError) in
                    try number(v, "zoom.scale")
                } ?? 1
            if let offset = zoomValue["offset"] {
                zoom.offset = Vector(
                    dx: try number(offset["x"], "zoom.offset.x"),
                    dy: try number(offset["y"], "zoom.offset.y"))
            }
        }
        let orientation =
            try fields.orientation.map { v throws(CropRecordError) in try number(v, "orientation")
            } ?? 1
        var expected: Expectation?
        if let expectedValue = fields.expected {
            expected = try expectation(expectedValue)
        }
        var aspect: AspectChoice?
        if let aspectValue = fields.aspect {
            guard case .string(let text) = aspectValue, let parsed = AspectChoice(parsing: text)
            else {
                throw CropRecordError(
                    description: "aspect must be \"P:Q\" with positive whole numbers or \"source\"")
            }
            aspect = parsed
        }
        self.init(
            request: CropRequest(
                sourceSize: Size(width: source.0, height: source.1),
                viewport: Size(width: viewport.0, height: viewport.1),
                selection: Rect(
                    x: selection.0, y: selection.1, width: selection.2, height: selection.3),
                mode: mode, imageScale: imageScale, zoom: zoom,
                orientation: EXIFOrientation(exactly: orientation) ?? .up,
                angle: try fields.angle.map { v throws(CropRecordError) in try number(v, "angle") }
                    ?? 0),
            orientationValue: orientation, aspect: aspect, expected: expected, json: value,
            companion: try Self.companionSize(fields.companion),
            expectedCompanion: try fields.expected?["companion"].map {
                v throws(CropRecordError) in try CompanionExpectation(json: v)
            },
            face: try Self.faceRect(fields.face),
            expectedFace: try fields.expected?["face"].map { v throws(CropRecordError) in
                try Self.faceAnswer(v, "expected.face")
            })
    }

    /// The record as given plus the replay's answer: `result` (null when
    /// rejected; with `stored` when the orientation is not 1) and `reason`,
    /// then `extra`. A `result` the app wrote is kept, renamed
    /// `recordedResult`; an earlier `reason` is replaced.
    public func replayed(
        _ outcome: Result<CropResult, CropRejection>, extra: [JSONValue.Member] = []
    ) -> JSONValue {
        replayed(answer: .mapped(outcome), extra: extra)
    }

    /// ``replayed(_:extra:)`` for either kind of answer: a turned one's
    /// `result` is its output rect `O` with its `outputSize` and the image
    /// `quad` of `O`'s corners.
    public func replayed(answer: Answer, extra: [JSONValue.Member] = []) -> JSONValue {
        var out: [JSONValue.Member] = []
        if case .object(let members) = json {
            for member in members where member.key != "reason" && member.key != "recordedResult" {
                out.append(member.key == "result" ? .init("recordedResult", member.value) : member)
            }
        }
        out += answerMembers(answer)
        return .object(out + extra)
    }

    /// Appends ``replayed(_:extra:)`` to `out` as JSON text, echoing
    /// `line` (the text this record was parsed from) byte for byte where
    /// that gives the same record: when it has no `result`, `reason` or
    /// `recordedResult` of its own, the answer's members are written after
    /// its last member. Spacing, number text and string escapes stay as the
    /// app wrote them, and replaying a million records does not re-write
    /// every one of them.
    public func writeReplayed(
        _ outcome: Result<CropResult, CropRejection>, extra: [JSONValue.Member] = [],
        echoing line: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]
    ) {
        writeReplayed(answer: .mapped(outcome), extra: extra, echoing: line, to: &out)
    }

    /// ``writeReplayed(_:extra:echoing:to:)`` for either kind of answer.
    public func writeReplayed(
        answer: Answer, extra: [JSONValue.Member] = [],
        echoing line: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]
    ) {
        guard let line, case .object(let members) = json, !members.isEmpty,
            !members.contains(where: {
                $0.key == "result" || $0.key == "reason" || $0.key == "recordedResult"
            }),
            let close = line.lastIndex(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }),
            line[close] == UInt8(ascii: "}")
        else {
            replayed(answer: answer, extra: extra).write(to: &out)
            return
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line[..<close]))
        for member in answerMembers(answer) + extra {
            out.append(UInt8(ascii: ","))
            JSONValue.object([member]).writeMembers(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `result` (and `reason` when rejected), as the replay adds them; a
    /// mapped result of a record with a companion holds its `companion`,
    /// of one with a face its `face`.
    private func answerMembers(_ answer: Answer) -> [JSONValue.Member] {
        let failure: CropRejection
        switch answer {
        case .mapped(.success(let result)):
            let added = [companionMember(result), faceMember(result)].compactMap { $0 }
            guard !added.isEmpty, case .object(let rect) = result.json
            else { return [.init("result", result.json)] }
            return [.init("result", .object(rect + added))]
        case .turned(.success(let crop)):
            let r = crop.rect
            return [
                .init(
                    "result",
                    .object(
                        pixelRectMembers(r.x, r.y, r.width, r.height) + Self.turnedMembers(crop)))
            ]
        case .mapped(.failure(let rejection)), .turned(.failure(let rejection)):
            failure = rejection
        }
        return [.init("result", .null), Self.reasonMember(failure)]
    }

    /// A straightened crop's `outputSize` and `quad` (its output rect's
    /// corners in the image), as records carry them.
    public static func turnedMembers(_ crop: StraightenedCrop) -> [JSONValue.Member] {
        [
            .init(
                "outputSize",
                .object([
                    .init("width", .number(crop.outputSize.width)),
                    .init("height", .number(crop.outputSize.height)),
                ])),
            .init(
                "quad",
                .array(crop.quad.map { .array([JSONValue.number($0.x), JSONValue.number($0.y)]) })),
        ]
    }

    /// `"reason": {"code", "message"}` of a rejection, as records carry it.
    public static func reasonMember(_ rejection: CropRejection) -> JSONValue.Member {
        .init(
            "reason",
            .object([
                .init("code", .string(rejection.code)),
                .init("message", .string(rejection.description)),
            ]))
    }

    /// ``replayed(_:extra:)`` as one line of JSON text.
    public func jsonLine(
        replaying outcome: Result<CropResult, CropRejection>, extra: [JSONValue.Member] = []
    ) -> String {
        replayed(outcome, extra: extra).text
    }
}

extension CropResult {
    /// `{"x","y","width","height"}` in the image grid, plus `stored` when the
    /// orientation is not 1.
    public var json: JSONValue {
        var members = pixelRectMembers(rect.x, rect.y, rect.width, rect.height)
        if orientation != .up {
            members.append(
                .init(
                    "stored",
                    .object(pixelRectMembers(stored.x, stored.y, stored.width, stored.height))))
        }
        return .object(members)
    }
}

extension CropRecord.Expectation {
    /// What a record expects when the contract gives `outcome`: its rect
    /// (with the stored rect when the orientation is not 1), or a
    /// rejection.
    public init(_ outcome: Result<CropResult, CropRejection>) {
        switch outcome {
        case .failure: self = .rejected
        case .success(let result):
            let r = result.rect
            let s = result.stored
            self = .rect(
                x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height),
                stored: result.orientation == .up
                    ? nil
                    : CropRecord.StoredExpectation(
                        x: Double(s.x), y: Double(s.y), width: Double(s.width),
                        height: Double(s.height)))
        }
    }
}

extension CropRecord.Expectation {
    /// The expectation as a record writes it: `null`, or the rect with
    /// `stored` when given.
    public var json: JSONValue {
        switch self {
        case .rejected: return .null
        case .rect(let x, let y, let w, let h, let stored):
            var members: [JSONValue.Member] = [
                .init("x", .number(x)), .init("y", .number(y)), .init("width", .number(w)),
                .init("height", .number(h)),
            ]
            if let stored {
                members.append(
                    .init(
                        "stored",
                        .object([
                            .init("x", .number(stored.x)), .init("y", .number(stored.y)),
                            .init("width", .number(stored.width)),
                            .init("height", .number(stored.height)),
                        ])))
            }
            return .object(members)
        }
    }
}

private func pixelRectMembers(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [JSONValue.Member] {
    [
        .init("x", .number(x)), .init("y", .number(y)), .init("width", .number(w)),
        .init("height", .number(h)),
    ]
}

private func sizeJSON(_ w: Double, _ h: Double) -> JSONValue {
    .object([.init("width", .number(w)), .init("height", .number(h))])
}

/// `{"x","y","width","height"}` of a rect in any space.
func rectJSON<Space>(_ r: Rect<Space>) -> JSONValue {
    .object([
        .init("x", .number(r.x)), .init("y", .number(r.y)), .init("width", .number(r.width)),
        .init("height", .number(r.height)),
    ])
}

extension Rect {
    /// `{"x","y","width","height"}`, as a record writes a rect.
    public var json: JSONValue { rectJSON(self) }
}

extension PixelRect {
    /// `{"x","y","width","height"}`, as every report writes a rect.
    public var json: JSONValue { .object(pixelRectMembers(x, y, width, height)) }
}

extension PixelSize {
    /// `{"width","height"}`, as every report writes a size.
    public var json: JSONValue { .size(width: width, height: height) }
}

extension JSONValue {
    /// `{"width","height"}`, as every report writes a size.
    public static func size(width: Int, height: Int) -> JSONValue {
        .object([.init("width", .number(width)), .init("height", .number(height))])
    }
}

/// The members of a record that its parser reads, found in one pass.
private struct RecordFields {
    var source: JSONValue?
    var viewport: JSONValue?
    var selection: JSONValue?
    var mode: JSONValue?
    var imageScale: JSONValue?
    var zoom: JSONValue?
    var orientation: JSONValue?
    var expected: JSONValue?
    var aspect: JSONValue?
    var angle: JSONValue?
    var companion: JSONValue?
    var face: JSONValue?
}

/// A record number: a JSON number, or one of the strings "nan", "inf", "-inf".
/// The field's name is made only for an error message (`@autoclosure`):
/// building "selection.x" for every number cost a tenth of a replay.
private func number(_ value: JSONValue?, _ field: @autoclosure () -> String)
    throws(CropRecordError) -> Double
{
    switch value {
    case .number(_, let v)?: return v
    case .string("nan")?: return .nan
    case .string("inf")?: return .infinity
    case .string("-inf")?: return -.infinity
    case nil: throw CropRecordError(description: "\(field()) is missing")
    default:
        throw CropRecordError(
            description: "\(field()) must be a number (or \"nan\", \"inf\", \"-inf\")")
    }
}

private func size(_ value: JSONValue?, _ field: String) throws(CropRecordError) -> (Double, Double)
{
    guard case .object? = value else {
        throw CropRecordError(description: "\(field) must be an object {\"width\":w,\"height\":h}")
    }
    let size = (
        try number(value?["width"], "\(field).width"),
        try number(value?["height"], "\(field).height")
    )
    if field == "source" {
        try exactWhole(value?["width"], "source.width")
        try exactWhole(value?["height"], "source.height")
    }
    return size
}

/// Refuses a whole number written in a record that a `Double` cannot hold
/// exactly (9007199254740993 would silently become 2^53): a pixel count
/// must be the one the app wrote.
private func exactWhole(_ value: JSONValue?, _ field: String) throws(CropRecordError) {
    guard case .number(let text, let parsed)? = value,
        text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") })
    else { return }
    let digits = text.drop(while: { $0 == "-" || $0 == "0" })
    let exact = Int64(String(digits)).map { Double(exactly: $0) == abs(parsed) } ?? false
    guard digits.isEmpty || exact else {
        throw CropRecordError(
            description:
                "\(field) \(text) is not exactly representable (over 2^53); a pixel count must be exact"
        )
    }
}

private func rect(_ value: JSONValue?, _ field: String) throws(CropRecordError) -> (
    Double, Double, Double, Double
) {
    guard case .object? = value else {
        throw CropRecordError(
            description: "\(field) must be an object {\"x\",\"y\",\"width\",\"height\"}")
    }
    return (
        try number(value?["x"], "\(field).x"), try number(value?["y"], "\(field).y"),
        try number(value?["width"], "\(field).width"),
        try number(value?["height"], "\(field).height")
    )
}

private func expectation(_ value: JSONValue) throws(CropRecordError) -> CropRecord.Expectation {
    if value == .null { return .rejected }
    let r = try rect(value, "expected")
    var stored: CropRecord.StoredExpectation?
    if let storedValue = value["stored"], storedValue != .null {
        let s = try rect(storedValue, "expected.stored")
        stored = CropRecord.StoredExpectation(x: s.0, y: s.1, width: s.2, height: s.3)
    }
    return .rect(x: r.0, y: r.1, width: r.2, height: r.3, stored: stored)
}
