import CropGeometry

extension CropSession {
    /// The failure record for the current selection: its numbers,
    /// `result` (what was computed, or null) and, when given, `expected`;
    /// `note` and the source identity go in as extra fields.
    public func failureRecord(note: String, expected: CropRecord.Expectation? = nil) -> CropRecord?
    {
        guard let selection else { return nil }
        let request = request(for: selection.rect)
        var extra: [JSONValue.Member] = [
            .init("note", .string(note)), .init("sourceIdentity", .string(source.identity)),
            .init("generation", .number(generation)),
        ]
        if let result = try? request.map() {
            extra.insert(.init("result", result.json), at: 0)
        } else {
            extra.insert(.init("result", .null), at: 0)
        }
        return CropRecord(request: request, expected: expected, extra: extra)
    }
}
