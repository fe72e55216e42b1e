import CropRecords

/// Every member a `cropkit batch` manifest line may hold, with its type:
/// one table, checked before a line is planned, so that a misspelt member
/// (`"angel"`), a mistyped one (`"circle":"yes"`) or one in the wrong place
/// (`"variants"` inside a variant) fails the line naming it, instead of
/// being ignored while the line is reported written.
package enum ManifestMembers {
    /// A member's JSON type.
    enum Kind: String {
        case string = "a string"
        case number = "a number"
        case numberOrString = "a number or a string"
        case bool = "true or false"
        case object = "an object"
        case array = "an array of objects"

        func admits(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.number, .number), (.bool, .bool), (.object, .object),
                (.array, .array):
                true
            case (.numberOrString, .number), (.numberOrString, .string): true
            default: false
            }
        }
    }

    /// The members of a line (and of a variant, but `variants`).
    static let line: [String: Kind] = [
        "input": .string, "output": .string, "format": .string, "pixels": .object,
        "source": .object, "viewport": .object, "selection": .object, "mode": .string,
        "imageScale": .number, "zoom": .object, "orientation": .number, "aspect": .string,
        "inside": .bool, "angle": .numberOrString, "size": .string, "fit": .string,
        "width": .numberOrString, "height": .numberOrString, "filter": .string, "fill": .string,
        "circle": .bool, "variants": .array, "frame": .number,
    ]

    /// The members of the objects inside some members.
    static let nested: [String: [String: Kind]] = [
        "pixels": ["x": .number, "y": .number, "width": .number, "height": .number],
        "source": ["width": .number, "height": .number],
        "viewport": ["width": .number, "height": .number],
        "selection": ["x": .number, "y": .number, "width": .number, "height": .number],
        "zoom": ["scale": .number, "offset": .object],
    ]
    /// The members of `zoom`'s `offset`.
    static let zoomOffset: [String: Kind] = ["x": .number, "y": .number]

    /// What is wrong with the members of `json` (a line, or a variant when
    /// `variant` is its number from 1), or `nil` when every member is known,
    /// given once and of its type. A path member holding a NUL byte is
    /// refused here too, before any other check of it.
    package static func problem(in json: JSONValue, variant: Int? = nil) -> String? {
        guard case .object(let members) = json else {
            return variant.map { "variant \($0) is not a JSON object" } ?? "not a JSON object"
        }
        let place = variant.map { "variant \($0): " } ?? ""
        if let problem = check(members, table: line, path: "") {
            return place + problem
        }
        for member in members {
            switch member.key {
            case "variants" where variant != nil:
                return place + "\"variants\" cannot be nested inside a variant"
            case "variants":
                guard case .array(let list) = member.value, !list.isEmpty else {
                    return "\"variants\" must be a non-empty array of objects"
                }
                for (index, item) in list.enumerated() {
                    if let problem = problem(in: item, variant: index + 1) { return problem }
                }
            case "input", "output":
                if case .string(let path) = member.value, let reason = PathCheck.problem(path) {
                    return place + "\"\(member.key)\" '\(PathCheck.printable(path))': \(reason)"
                }
            default:
                guard let table = nested[member.key], case .object(let inner) = member.value
                else { continue }
                if let problem = check(inner, table: table, path: member.key + ".") {
                    return place + problem
                }
                if member.key == "zoom", case .object(let offset)? = member.value["offset"],
                    let problem = check(offset, table: zoomOffset, path: "zoom.offset.")
                {
                    return place + problem
                }
            }
        }
        return nil
    }

    /// The first member of `members` that is unknown to `table`, given
    /// twice, or not of its kind.
    private static func check(_ members: [JSONValue.Member], table: [String: Kind], path: String)
        -> String?
    {
        var seen: Set<String> = []
        for member in members {
            let name = path + member.key
            guard let kind = table[member.key] else {
                let known = table.keys.sorted().map { "\"\(path)\($0)\"" }.joined(separator: ", ")
                let guess = Spelling.closest(to: member.key, among: Array(table.keys))
                return "unknown member \"\(name)\""
                    + (guess.map { "; did you mean \"\(path)\($0)\"?" } ?? "")
                    + " (known: \(known))"
            }
            guard seen.insert(member.key).inserted else {
                return "\"\(name)\" is given twice (ambiguous); give it once"
            }
            guard kind.admits(member.value) else {
                return "\"\(name)\" must be \(kind.rawValue)"
            }
        }
        return nil
    }
}
