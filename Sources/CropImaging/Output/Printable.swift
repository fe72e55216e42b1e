/// `text` with every control character but line feed and tab written as a
/// C escape, as exiftool's `-ec` writes them: NUL as `\0`, carriage return
/// as `\r`, another C0 byte or DEL as `\x1b`, a C1 character as `\u0085`.
/// A file's text then cannot end a line early, move the cursor or change a
/// terminal's colours.
///
/// Decided (hostile input, round five): the Unicode line and paragraph
/// separators (U+2028, U+2029) and the bidirectional controls that reorder
/// what a terminal shows (U+061C, U+200E, U+200F, U+202A to U+202E,
/// U+2066 to U+2069: the "Trojan Source" characters) are escaped the same
/// way (`\u2028`, `\u202e`): an editor or a log viewer breaks a line at
/// the first, and the others make a name read as another. Every other
/// character, accented or not Latin, is printed as it is. JSON output
/// escapes its own way.
public func printable(_ text: String) -> String {
    escaped(text, keepingLines: true)
}

/// `text` as one field of a line (a path, a tag, an error's sentence): as
/// ``printable(_:)``, and line feed and tab escaped too (`\n`, `\t`), so
/// that a file named `"a\nFAKE: b: clean"` cannot start a line of its own.
public func printable(field text: String) -> String {
    escaped(text, keepingLines: false)
}

/// Whether `scalar` is one ``printable(_:)`` escapes as `\u` and its code.
private func isInvisibleFormat(_ value: UInt32) -> Bool {
    switch value {
    case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
        return true
    default:
        return false
    }
}

private func escaped(_ text: String, keepingLines: Bool) -> String {
    func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && !(keepingLines && (byte == 10 || byte == 9))) || byte == 0x7F
    }
    // C1 controls are U+0080-U+009F (UTF-8 C2 80 to C2 9F); the separators
    // and bidi controls start E2 80, E2 81 or D8 9C.
    let utf8 = text.utf8
    guard utf8.contains(where: { isControl($0) || $0 == 0xC2 || $0 == 0xE2 || $0 == 0xD8 }) else {
        return text
    }
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0: out += "\\0"
        case 13: out += "\\r"
        case 10 where keepingLines, 9 where keepingLines: out.unicodeScalars.append(scalar)
        case 10: out += "\\n"
        case 9: out += "\\t"
        case 0..<0x20, 0x7F:
            out += "\\x" + padded(String(scalar.value, radix: 16), to: 2)
        case let value where isInvisibleFormat(value):
            out += "\\u" + padded(String(value, radix: 16), to: 4)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

extension String.StringInterpolation {
    /// Appends `value` escaped as one field of a line
    /// (``printable(field:)``): `"\(field: path): clean\n"`.
    package mutating func appendInterpolation<Value>(field value: Value) {
        appendLiteral(printable(field: String(describing: value)))
    }
}

/// `digits` with `"0"`s in front, to `width` characters.
private func padded(_ digits: String, to width: Int) -> String {
    String(repeating: "0", count: max(0, width - digits.count)) + digits
}
