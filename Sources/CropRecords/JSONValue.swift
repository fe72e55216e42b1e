import CropGeometry

/// A parsed JSON value that remembers the text of its numbers and the order
/// of its object members, so a record can be written back as it was given.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number: its text as written, and its nearest `Double`.
    case number(text: String, value: Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue

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
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let text, _): out += text
        case .string(let s): writeJSONString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                writeJSONString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }
}

/// JSON text for a finite `Double`; non-finite values are written as the
/// strings `"nan"`, `"inf"` and `"-inf"`, as failure records spell them.
func jsonNumberText(_ value: Double) -> String {
    value.isFinite ? numberText(value) : "\"\(numberText(value))\""
}

private func writeJSONString(_ s: String, to out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    out += "\""
}

/// A JSON syntax error, with the byte offset where it was found.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var problem: String

    public var description: String { "\(problem) at byte \(offset + 1)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259), nested at most 64 deep.
    public init(parsing text: String) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else {
            throw parser.error("unexpected text after the JSON value")
        }
        self = value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ problem: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, problem: problem)
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
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

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count,
            Array(bytes[index..<index + expected.count]) == expected
        else { throw error("invalid literal") }
        index += expected.count
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [JSONValue.Member] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in quotes")
            }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name")
            }
            index += 1
            skipSpace()
            members.append(JSONValue.Member(key, try value(depth: depth + 1)))
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
            items.append(try value(depth: depth + 1))
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

    mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() {
            if !run.isEmpty {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                flush()
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                run.append(byte)
                index += 1
                continue
            }
            flush()
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
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
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: throw error("invalid escape in a string")
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        index += 4
        return code
    }

    mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        guard digits() > 0 else { throw error("invalid JSON value") }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
            throw error("a number may not start with 0")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("expected digits after '.'") }
        }
        if index < bytes.count,
            bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
        {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard digits() > 0 else { throw error("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // Double(String) rounds correctly; a value beyond Double's range is infinite.
        let value = Double(text) ?? (text.hasPrefix("-") ? -.infinity : .infinity)
        return .number(text: text, value: value)
    }
}
