/// A command line that does not follow a subcommand's usage: exit 64.
package struct UsageError: Error {
    /// What is wrong with it.
    package var message: String
}

/// One option a subcommand accepts.
package struct OptionSpec: Sendable {
    /// Its long name, without the dashes.
    package var name: String
    /// The placeholder for its value, or `nil` for a flag.
    package var value: String?
    /// One line for the help table.
    package var help: String
    /// A one-letter alias (`-o`).
    package var short: Character? = nil
    /// Whether it may be given more than once.
    package var repeatable = false
}

/// A command line split into options, flags and positional arguments.
package struct ParsedArguments {
    /// Each option's value (the last, for a repeatable one).
    package var values: [String: String] = [:]
    /// Every value of a repeatable option, in order.
    package var repeated: [String: [String]] = [:]
    /// The flags given.
    package var flags: Set<String> = []
    /// The arguments that are not options.
    package var positionals: [String] = []

    /// Parses `--name value`, `--name=value` and `--flag`; `-` alone and words
    /// not starting with `--` are positional. Each option at most once.
    package init(_ arguments: [String], specs: [OptionSpec]) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            if argument.count == 2, argument.first == "-", let letter = argument.last,
                let spec = specs.first(where: { $0.short == letter })
            {
                argument = "--" + spec.name
            }
            guard argument.hasPrefix("--"), argument != "--" else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown option '--\(name)'")
            }
            if !spec.repeatable && (values[name] != nil || flags.contains(name)) {
                throw UsageError(message: "option '--\(name)' given more than once")
            }
            if spec.value == nil {
                guard inlineValue == nil else {
                    throw UsageError(message: "option '--\(name)' takes no value")
                }
                flags.insert(name)
            } else {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw UsageError(
                            message: "option '--\(name)' needs a value (\(spec.value ?? "a value"))"
                        )
                    }
                    value = arguments[index]
                    index += 1
                }
                values[name] = value
                repeated[name, default: []].append(value)
            }
        }
    }
}

/// Formats the options table of a help text.
func optionsHelp(_ specs: [OptionSpec]) -> String {
    let labels = specs.map { spec in
        (spec.short.map { "-\($0), " } ?? "") + "--\(spec.name)"
            + (spec.value.map { " \($0)" } ?? "")
    }
    let width = (labels.map(\.count).max() ?? 0) + 2
    return zip(labels, specs).map { label, spec in
        "  " + label + String(repeating: " ", count: width - label.count) + spec.help
    }.joined(separator: "\n")
}
