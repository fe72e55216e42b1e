import CropGeometry

/// A parsed JSON value that remembers the text of its numbers and the order
/// of its object members, so a record can be written back as it was given.
///
/// Not `indirect`: arrays and objects already hold their elements in a heap
/// buffer, so a value needs no box of its own, and parsing a record costs a
/// handful of allocations rather than one per value (replay reads hundreds
/// of thousands of records a second).
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number: its text as written, and its nearest `Double`.
    case number(text: String, value: Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in the order given.
    case object([Member])

    /// One member of an object.
    public struct Member: Hashable, Sendable {
        /// The member's name.
        public var key: String
        /// Its value.
        public var value: JSONValue

        /// The member `key`: `value`.
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// A number written with the shortest text that reads back as `value`;
    /// whole numbers are written without a fraction.
    public static func number(_ value: Double) -> JSONValue {
        .number(text: jsonNumberText(value), value: value)
    }

    /// A whole number.
    public static func number(_ value: Int) -> JSONValue {
        .number(text: String(value), value: Double(value))
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// Compact JSON text.
    public var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact JSON text of this value to `out`.
    public func write(to out: inout String) {
        out += text
    }

    /// Appends the compact JSON text of this value, as UTF-8, to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text, _): out.append(contentsOf: text.utf8)
        case .string(let s): writeJSONString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeJSONString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONValue {
    /// Appends an object's members as `"key":value` pairs separated by
    /// commas, without the braces (nothing for other values).
    func writeMembers(to out: inout [UInt8]) {
        guard case .object(let members) = self else { return }
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeJSONString(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            member.value.write(to: &out)
        }
    }
}

/// JSON text for a finite `Double`; non-finite values are written as the
/// strings `"nan"`, `"inf"` and `"-inf"`, as failure records spell them.
func jsonNumberText(_ value: Double) -> String {
    value.isFinite ? numberText(value) : "\"\(numberText(value))\""
}

private let hexDigits = Array("0123456789abcdef".utf8)

/// Appends `s` as a JSON string: quotes, backslashes and control
/// characters escaped, everything else as its UTF-8 bytes.
private func writeJSONString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    let written: Void? = s.utf8.withContiguousStorageIfAvailable { bytes in
        appendEscaped(bytes, to: &out)
    }
    if written == nil { appendEscaped(Array(s.utf8), to: &out) }
    out.append(UInt8(ascii: "\""))
}

/// Appends `bytes` with quotes, backslashes and control characters escaped;
/// runs without any are copied whole.
private func appendEscaped<Bytes: RandomAccessCollection<UInt8>>(
    _ bytes: Bytes, to out: inout [UInt8]
) where Bytes.Index == Int {
    var runStart = bytes.startIndex
    var i = bytes.startIndex
    while i < bytes.endIndex {
        let byte = bytes[i]
        if byte >= 0x20 && byte != 0x22 && byte != 0x5C {
            i += 1
            continue
        }
        out.append(contentsOf: bytes[runStart..<i])
        switch byte {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        i += 1
        runStart = i
    }
    out.append(contentsOf: bytes[runStart..<bytes.endIndex])
}

/// A JSON syntax error, with the byte offset where it was found.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where, from 0.
    public var offset: Int
    /// What is wrong there.
    public var problem: String
    /// Whether the problem is a member given twice: the text is then
    /// read again, tracking the path that names it.
    var givenTwice = false

    /// "PROBLEM at byte N", counting from 1.
    public var description: String { "\(problem) at byte \(offset + 1)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259), nested at most 64 deep; an object
    /// that gives a member twice, at any depth, is refused, naming its path
    /// (`selection.x`): which of the two a reader takes, RFC 8259 leaves
    /// open, and readers differ.
    public init(parsing text: String) throws(JSONSyntaxError) {
        var text = text
        let parsed = text.withUTF8 { bytes in
            Result { () throws(JSONSyntaxError) in try JSONValue(parsingUTF8: bytes) }
        }
        self = try parsed.get()
    }

    /// Parses one JSON text given as UTF-8 bytes (a line straight from a
    /// file, with no `String` made of it).
    public init(parsingUTF8 bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value: JSONValue
        do {
            value = try parser.value(depth: 0)
        } catch  where error.givenTwice {
            // A member given twice: read again, tracking the path to it.
            var tracking = JSONParser(bytes: bytes, tracksPath: true)
            tracking.skipSpace()
            _ = try tracking.value(depth: 0)
            throw error
        }
        parser.skipSpace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected text after the JSON value")
        }
        self = value
    }
}

/// 10^k for k in 0...22: every one exact in a `Double`.
private let exactPowersOfTen: [Double] = (0...22).map { k in
    var value = 1.0
    for _ in 0..<k { value *= 10 }
    return value
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Whether the parser keeps ``path``: only when a text it read gave a
    /// member twice, read again to name where (a good text is read once,
    /// tracking nothing).
    let tracksPath: Bool
    /// The member names and array indexes from the top to where the parser
    /// is, under ``tracksPath``.
    var path: [PathStep] = []

    /// One step of a path into a JSON text.
    enum PathStep {
        case member(String)
        case item(Int)
    }

    init(bytes: UnsafeBufferPointer<UInt8>, tracksPath: Bool = false) {
        self.bytes = bytes
        self.tracksPath = tracksPath
    }

    func error(_ problem: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, problem: problem)
    }

    /// The error for the member `name` given twice in the object being
    /// read, with its path when the parser tracks one (``tracksPath``).
    /// The path reads `selection.x`, `variants[2].output`.
    func twice(_ name: String) -> JSONSyntaxError {
        var text = ""
        for step in path + [.member(name)] {
            switch step {
            case .member(let key): text += text.isEmpty ? key : ".\(key)"
            case .item(let index): text += "[\(index)]"
            }
        }
        var error = error("the member \"\(text)\" is given twice (ambiguous); give it once")
        error.givenTwice = true
        return error
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < 64 else { throw error("JSON nested too deeply") }
        guard index < bytes.count else { throw error("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return try number()
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            memcmpEqual(bytes.baseAddress.map { $0 + index }, word.utf8Start, count)
        else { throw error("invalid literal") }
        index += count
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [JSONValue.Member] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        members.reserveCapacity(8)
        // The names so far, once an object has more than a few (so that a
        // hostile object of a million members costs linear time).
        var names: Set<[UInt8]> = []
        // The signatures of the names so far (see below).
        var seen: UInt64 = 0
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in quotes")
            }
            let nameStart = index
            let key = try string()
            // A member given twice is ambiguous (RFC 8259 leaves it to the
            // reader, and readers differ): refused at any depth. Names are
            // the same when they decode to the same scalars ("x" and
            // "\u0078"), compared as UTF-8, not by Unicode equivalence.
            if members.count >= 16 {
                if names.isEmpty { names = Set(members.map { Array($0.key.utf8) }) }
                guard names.insert(Array(key.utf8)).inserted else {
                    index = nameStart
                    throw twice(key)
                }
            } else {
                // A name's signature, one bit of 64 from its first byte and
                // length as written; a name with an escape sets them all (as
                // written it is not what it decodes to). Only a name whose
                // bit an earlier one set is compared with the others: a
                // record's names almost never are.
                let written = index - nameStart - 2
                let signature: UInt64 =
                    written > 0 && written == key.utf8.count
                    ? 1 &<< ((UInt64(bytes[nameStart + 1]) &* 31 &+ UInt64(written)) & 63) : ~0
                if seen & signature != 0,
                    members.contains(where: { $0.key == key && $0.key.utf8.elementsEqual(key.utf8) }
                    )
                {
                    index = nameStart
                    throw twice(key)
                }
                seen |= signature
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name")
            }
            index += 1
            skipSpace()
            if tracksPath { path.append(.member(key)) }
            members.append(JSONValue.Member(key, try value(depth: depth + 1)))
            if tracksPath { path.removeLast() }
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of JSON in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            if tracksPath { path.append(.item(items.count)) }
            items.append(try value(depth: depth + 1))
            if tracksPath { path.removeLast() }
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of JSON in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(items)
        }
    }

    /// A string: its bytes as they are up to the closing quote when it has
    /// no escape (the common case), else decoded escape by escape.
    mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            index += 1
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                    bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                }
                out.append(contentsOf: String(Unicode.Scalar(code) ?? "\u{FFFD}").utf8)
            default: throw error("invalid escape in a string")
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
        var code: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            code = code << 4 | digit
        }
        index += 4
        return code
    }

    mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        // The digits, as one integer while it has at most 15 of them: with
        // at most 22 after the point it then converts exactly, by a single
        // correctly rounded division (the classic fast path).
        var mantissa: Int64 = 0
        var significant = 0
        var fractionDigits = 0
        func digits(_ fraction: Bool) -> Int {
            let from = index
            while index < bytes.count, bytes[index] &- 0x30 < 10 {
                if significant < 16 {
                    mantissa = mantissa * 10 + Int64(bytes[index] &- 0x30)
                    if mantissa != 0 { significant += 1 }
                    if fraction { fractionDigits += 1 }
                } else {
                    significant += 1
                }
                index += 1
            }
            return index - from
        }
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let integerStart = index
        guard digits(false) > 0 else {
            // NaN and Infinity, as JavaScript and Python print them.
            let word = bytes[index..<min(index + 8, bytes.count)]
            if word.starts(with: Array("NaN".utf8)) || word.starts(with: Array("Infinity".utf8)) {
                throw error(
                    "\(negative ? "-" : "")\(word.starts(with: Array("NaN".utf8)) ? "NaN" : "Infinity") is not a JSON number (JSON has no NaN or Infinity): write a finite number"
                )
            }
            throw error("invalid JSON value")
        }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
            throw error("a number may not start with 0")
        }
        var simple = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(true) > 0 else { throw error("expected digits after '.'") }
        }
        if index < bytes.count,
            bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
        {
            simple = false
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard digits(false) > 0 else { throw error("expected digits in the exponent") }
        }
        let text = String(
            decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        let value: Double
        if simple, significant <= 15, fractionDigits <= 22 {
            let magnitude = Double(mantissa) / exactPowersOfTen[fractionDigits]
            value = negative ? -magnitude : magnitude
        } else {
            // Double(String) rounds correctly; beyond Double's range is infinite.
            value = Double(text) ?? (negative ? -.infinity : .infinity)
        }
        return .number(text: text, value: value)
    }
}

/// Whether `count` bytes at `a` equal those at `b`.
private func memcmpEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>, _ count: Int)
    -> Bool
{
    guard let a else { return count == 0 }
    for i in 0..<count where a[i] != b[i] { return false }
    return true
}
