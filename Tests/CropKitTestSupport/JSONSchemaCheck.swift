import Foundation

/// A real JSON Schema validator: the `jsonschema` package (draft 2020-12)
/// in CropKit's own virtual environment (`scripts/python-venv`), so that a
/// schema means what any consumer's validator takes it to mean.
public enum JSONSchemaCheck {
    /// Whether the environment has `jsonschema`; a test gates on it.
    public static let isAvailable: Bool = {
        guard let python = Pillow.python else { return false }
        return (try? Subprocess.run(python, ["-c", "import jsonschema"]).status) == 0
    }()

    /// Why a test was skipped without it.
    public static let absent = "without jsonschema in .build/venv (scripts/python-venv)"

    /// Checks `schema` against draft 2020-12's metaschema, then each of
    /// `instances` (JSON texts) against `schema`: `nil` for one that is
    /// valid, else the validator's first message. Throws when the schema
    /// itself is not valid, or the validator cannot run.
    public static func errors(schema: String, instances: [String]) throws -> [String?] {
        guard let python = Pillow.python else { throw Failure(message: absent) }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let schemaFile = folder.appendingPathComponent("schema.json")
        let instancesFile = folder.appendingPathComponent("instances.jsonl")
        try schema.write(to: schemaFile, atomically: true, encoding: .utf8)
        // One instance a line: a line break inside one is JSON whitespace.
        try instances.map { $0.replacingOccurrences(of: "\n", with: " ") }
            .joined(separator: "\n")
            .write(to: instancesFile, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1]))
            Draft202012Validator.check_schema(schema)
            validator = Draft202012Validator(schema)
            for line in open(sys.argv[2]).read().split("\\n"):
                try:
                    instance = json.loads(line)
                except ValueError as error:
                    print("not JSON: %s" % error)
                    continue
                error = next(iter(sorted(validator.iter_errors(instance), key=str)), None)
                print("ok" if error is None else
                      ("%s: %s" % ("/".join(map(str, error.absolute_path)), error.message)).replace("\\n", " "))
            """
        let result = try Subprocess.run(
            python, ["-c", script, schemaFile.path, instancesFile.path])
        guard result.status == 0 else {
            throw Failure(message: "the validator failed: \(result.err)")
        }
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix(instances.count).map(String.init)
        guard lines.count == instances.count else {
            throw Failure(message: "the validator answered \(lines.count) of \(instances.count)")
        }
        return lines.map { $0 == "ok" ? nil : $0 }
    }

    /// What went wrong running the validator.
    public struct Failure: Error, CustomStringConvertible {
        /// Why.
        public var message: String
        /// The message.
        public var description: String { message }
    }
}
