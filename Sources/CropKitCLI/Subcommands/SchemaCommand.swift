import CropRecords

/// `cropkit schema`: the JSON Schemas of what cropkit reads and prints.
struct SchemaCommand: Subcommand {
    static let name = "schema"
    static let summary =
        "print the JSON Schema of a manifest line, a failure record, or a --json output"
    static let usage = """
        Usage: cropkit schema [NAME]

        Prints the JSON Schema (draft 2020-12) named NAME, as the repository
        publishes it in Schemas/NAME.schema.json; without NAME, lists the
        names, one a line, with each schema's title. A program that reads
        cropkit's JSON, or writes the JSON cropkit reads, can validate it
        against the schema of the cropkit it runs. The DocC article
        "Machine interface" lists them and says what counts as a breaking
        change. Exit 64 for a name that is not one.
        """
    static let options: [OptionSpec] = []

    var requested: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count <= 1 else {
            throw UsageError(message: "give one schema NAME, or none for the list")
        }
        requested = parsed.positionals.first
        if let requested, Self.text(named: requested) == nil {
            let names = Self.published.map(\.name)
            let guess = ParsedArguments.closest(to: requested, among: names)
            throw UsageError(
                message: "no schema named '\(requested)'"
                    + (guess.map { "; did you mean '\($0)'?" } ?? "")
                    + " (known: \(names.joined(separator: ", ")))")
        }
    }

    func run(console: Console) -> Int32 {
        if let requested, let text = Self.text(named: requested) {
            console.out.write(text + "\n")
            return ExitCode.success
        }
        let width = (Self.published.map(\.name.count).max() ?? 0) + 2
        for schema in Self.published {
            let title = Self.title(of: schema.text) ?? ""
            console.out.write(
                schema.name + String(repeating: " ", count: width - schema.name.count) + title
                    + "\n")
        }
        return ExitCode.success
    }

    /// The schema named `name`, or `nil`.
    static func text(named name: String) -> String? {
        published.first { $0.name == name }?.text
    }

    /// A schema's `"title"`.
    static func title(of text: String) -> String? {
        guard case .string(let title)? = (try? JSONValue(parsing: text))?["title"] else {
            return nil
        }
        return title
    }
}
