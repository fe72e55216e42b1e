import CropRecords

/// The version every JSON object cropkit prints under a published schema
/// carries as `"schemaVersion"` (the DocC article "Machine interface"):
/// raised only by a breaking change (a member removed or renamed, a type
/// or a meaning changed), never by a member added.
package enum MachineInterface {
    /// The current version.
    package static let schemaVersion = 1

    /// `object` with `"schemaVersion"` as its first member.
    package static func versioned(_ object: JSONValue) -> JSONValue {
        guard case .object(let members) = object else { return object }
        return .object([.init("schemaVersion", .number(schemaVersion))] + members)
    }
}
