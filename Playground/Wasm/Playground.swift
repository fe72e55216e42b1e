// The playground's WebAssembly module: CropGeometry and CropRecords, the
// same source as the package's, compiled in Embedded Swift, behind a few C
// functions the page's script calls. Input and output are UTF-8 JSON in
// linear memory: the script writes a line into `ck_input`'s buffer, calls
// a function, and reads the answer from `ck_output` (its length is the
// call's result).

import CropGeometry
import CropRecords

nonisolated(unsafe) private var input: [UInt8] = []
nonisolated(unsafe) private var output: [UInt8] = []

/// A buffer of at least `size` bytes for the next call's input line.
@_cdecl("ck_input")
public func ckInput(_ size: Int32) -> UnsafeMutablePointer<UInt8> {
    let count = max(Int(size), 1)
    if input.count < count { input = [UInt8](repeating: 0, count: count) }
    return input.withUnsafeMutableBufferPointer { $0.baseAddress! }
}

/// The last call's answer (its length is that call's result).
@_cdecl("ck_output")
public func ckOutput() -> UnsafePointer<UInt8> {
    output.withUnsafeBufferPointer { $0.baseAddress! }
}

/// `cropkit replay`'s output line for the input line, as line 1 of a file.
@_cdecl("ck_replay")
public func ckReplay(_ size: Int32) -> Int32 {
    output.removeAll(keepingCapacity: true)
    input.withUnsafeBufferPointer { all in
        let line = UnsafeBufferPointer(rebasing: all[0..<Int(size)])
        RecordReplay(line: line).write(line: line, number: 1, to: &output)
    }
    return Int32(output.count)
}

/// Everything the page shows for the record on the input line:
/// `{"record","replay","display","visible","clip","pixelsInView","padding",
/// "article","articleNote","differences","svg"}`, or `{"error"}` when the
/// line is not a record.
@_cdecl("ck_explain")
public func ckExplain(_ size: Int32) -> Int32 {
    output.removeAll(keepingCapacity: true)
    let value = input.withUnsafeBufferPointer { all in
        explain(UnsafeBufferPointer(rebasing: all[0..<Int(size)]))
    }
    value.write(to: &output)
    return Int32(output.count)
}

private func explain(_ line: UnsafeBufferPointer<UInt8>) -> JSONValue {
    let replay = RecordReplay(line: line)
    guard let record = replay.record, let answer = replay.answer else {
        return .object([.init("error", .string(replay.problems.first ?? "not a record"))])
    }
    var replayed: [UInt8] = []
    replay.write(line: line, number: 1, to: &replayed)
    let request = record.orientedRequest
    var members: [JSONValue.Member] = [
        .init(
            "record",
            .string(CropRecord.vector(request, aspect: record.aspect, answer: answer).text)),
        .init("replay", .string(String(decoding: replayed, as: UTF8.self))),
    ]
    let display = try? request.displayRect()
    let viewport = Rect<ViewPoints>(
        x: 0, y: 0, width: request.viewport.width, height: request.viewport.height)
    let visible = display.flatMap { $0.intersection(viewport) }
    let clip = visible.flatMap { request.selection.intersection($0) }
    members.append(.init("display", rectJSON(display)))
    members.append(.init("visible", rectJSON(visible)))
    members.append(.init("clip", rectJSON(clip)))
    if let display {
        members.append(
            .init(
                "padding",
                .object([
                    .init("left", .number(max(0, display.x))),
                    .init("top", .number(max(0, display.y))),
                    .init("right", .number(max(0, viewport.width - display.x - display.width))),
                    .init("bottom", .number(max(0, viewport.height - display.y - display.height))),
                ])))
    }
    if case .mapped(.success(let result)) = answer {
        members.append(.init("pixelsInView", rectJSON(try? request.viewRect(for: result.rect))))
    }
    members += article(request, answer)
    members.append(
        .init("svg", .string(CropDiagram.svg(for: request, aspect: record.aspect, width: 360))))
    return .object(members)
}

/// The article's plain-`Double` recipe beside the contract, where it
/// applies (aspect fit, no zoom, orientation 1, not turned, scale 1).
private func article(_ request: CropRequest, _ answer: CropRecord.Answer) -> [JSONValue.Member] {
    guard request.mode == .aspectFit, request.zoom == .identity, request.orientation == .up,
        request.angle == 0, request.imageScale == 1
    else {
        return [
            .init("article", .null),
            .init(
                "articleNote",
                .string(
                    "the article's recipe is for aspect fit, no zoom, orientation 1 and no turn")),
        ]
    }
    let got = articleCropPixels(
        source: (request.sourceSize.width, request.sourceSize.height),
        viewport: (request.viewport.width, request.viewport.height),
        selection: (
            request.selection.x, request.selection.y, request.selection.width,
            request.selection.height
        ))
    var differences: [JSONValue] = []
    var contract: (x: Double, y: Double, width: Double, height: Double)?
    if case .mapped(.success(let result)) = answer {
        let r = result.rect
        contract = (Double(r.x), Double(r.y), Double(r.width), Double(r.height))
    }
    switch (got, contract) {
    case (nil, nil): break
    case (nil, .some):
        differences.append(.string("the recipe returns nil; the contract gives a rect"))
    case (.some(let a), nil):
        differences.append(
            .string(
                "the recipe returns \(numberText(a.x)),\(numberText(a.y)),\(numberText(a.width)),\(numberText(a.height)); the contract rejects the selection"
            ))
    case (.some(let a), .some(let c)):
        let edges: [(String, Double, Double)] = [
            ("left edge x", a.x, c.x), ("top edge y", a.y, c.y),
            ("right edge x", a.x + a.width, c.x + c.width),
            ("bottom edge y", a.y + a.height, c.y + c.height),
        ]
        for (name, recipe, exact) in edges where recipe != exact {
            differences.append(
                .string(
                    "\(name): the recipe says \(numberText(recipe)), the contract \(numberText(exact))"
                ))
        }
    }
    let articleJSON: JSONValue =
        got.map { a in
            .object([
                .init("x", .number(a.x)), .init("y", .number(a.y)),
                .init("width", .number(a.width)),
                .init("height", .number(a.height)),
            ])
        } ?? .null
    return [.init("article", articleJSON), .init("differences", .array(differences))]
}

private func rectJSON(_ rect: Rect<ViewPoints>?) -> JSONValue {
    guard let rect else { return .null }
    return .object([
        .init("x", .number(rect.x)), .init("y", .number(rect.y)),
        .init("width", .number(rect.width)),
        .init("height", .number(rect.height)),
    ])
}

/// The content modes, in the contract's order: `["aspectFit",...]`.
@_cdecl("ck_modes")
public func ckModes() -> Int32 {
    output.removeAll(keepingCapacity: true)
    JSONValue.array(ContentMode.allCases.map { .string($0.rawValue) }).write(to: &output)
    return Int32(output.count)
}
