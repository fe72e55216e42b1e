/// The `cropkit` command line: dispatches to a subcommand.
public enum CropKitTool {
    /// Every subcommand, in the order `cropkit --help` lists them.
    package static let subcommands: [any Subcommand.Type] = [
        MapCommand.self, ReplayCommand.self, CasesCommand.self, GradeCommand.self, CropCommand.self,
        BatchCommand.self, InfoCommand.self,
        ExplainCommand.self,
        FixtureCommand.self,
        VerifyCommand.self,
        LeaksCommand.self,
        DemoCommand.self,
        CompletionsCommand.self,
        SchemaCommand.self,
    ]

    /// The version `cropkit --version` prints.
    public static let version = "0.14.0"

    static var help: String {
        let width = (subcommands.map { $0.name.count }.max() ?? 0) + 2
        let lines = subcommands.map { command in
            "  " + command.name + String(repeating: " ", count: width - command.name.count)
                + command.summary
        }
        return """
            cropkit: exact, lossless crops of what a person selected on screen.

            Usage: cropkit <subcommand> [options]

            Subcommands:
            \(lines.joined(separator: "\n"))

            Run 'cropkit <subcommand> --help' for a subcommand's options, and
            'cropkit --version' (or 'cropkit version') for the version.
            Exit codes: 0 success, 1 a check or record failed or the mapping rejected
            the input, 2 bad input data, 64 usage.

            """
    }

    /// Runs `cropkit` with `arguments` (without the program name).
    ///
    /// - Returns: The process exit code.
    public static func run(_ arguments: [String], console: Console) -> Int32 {
        defer { console.flush() }
        guard let first = arguments.first else {
            console.err.write(help)
            return ExitCode.usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1,
                let command = subcommands.first(where: { $0.name == arguments[1] })
            {
                console.out.write(command.help)
            } else {
                console.out.write(help)
            }
            return ExitCode.success
        }
        if first == "--version" || first == "version" {
            console.out.write("cropkit \(version)\n")
            return ExitCode.success
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            let guess = ParsedArguments.closest(to: first, among: subcommands.map { $0.name })
            console.err.write(
                "error: unknown subcommand '\(field: first)'"
                    + (guess.map { "; did you mean '\($0)'?" } ?? "") + "\n\n" + help)
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        let options = rest.firstIndex(of: "--").map { rest[..<$0] } ?? rest[...]
        if options.contains("--help") || options.contains("-h") {
            console.out.write(command.help)
            return ExitCode.success
        }
        do throws(UsageError) {
            let parsed = try ParsedArguments(rest, specs: command.options)
            let instance = try command.init(parsed)
            if parsed.flags.contains("quiet") {
                // Only errors and warnings: standard output's report is dropped.
                var quiet = console
                quiet.out = DiscardSink()
                return instance.run(console: quiet)
            }
            return instance.run(console: console)
        } catch {
            console.err.write(
                "error: \(field: error.message)\nRun 'cropkit \(field: command.name) --help' for usage.\n"
            )
            return ExitCode.usage
        }
    }
}
