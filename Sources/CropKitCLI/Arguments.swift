import CropGeometry
import CropImaging

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
    /// Every option and flag in the order given, with its value (`nil` for
    /// a flag): what a command that reads options in groups (`crop` with
    /// several `-o`) splits.
    package var ordered: [(name: String, value: String?)] = []

    /// No options, flags or positional arguments: for a command that reads
    /// its options from elsewhere (a batch line) and fills them in.
    package init() {}

    /// Parses `--name value`, `--name=value`, `--flag` and the one-letter
    /// aliases (`-o value`, `-f`). `-` alone, a negative number and words not
    /// starting with `-` are positional, and so is everything after `--`.
    /// Each option at most once, unless repeatable.
    ///
    /// An unknown option names the closest known one ("did you mean
    /// --selection?"), and a value given in pieces (`--selection 10 10 100
    /// 100`) is told its shape.
    package init(_ arguments: [String], specs: [OptionSpec]) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        var groups = 0
        var repeatedOnce: [(name: String, group: Int)] = []
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-")
                || Double(argument) != nil
            {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if !argument.hasPrefix("--") {
                let letters = argument.dropFirst()
                guard letters.count == 1,
                    let spec = specs.first(where: { $0.short == letters.first })
                else {
                    throw UsageError(
                        message: "unknown option '\(argument)'"
                            + Self.suggestion(for: String(letters), among: specs))
                }
                argument = "--" + spec.name
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError(
                    message: "unknown option '--\(name)'" + Self.suggestion(for: name, among: specs)
                )
            }
            if !spec.repeatable && (values[name] != nil || flags.contains(name)) {
                // Each group an -o starts (`crop`'s variants) may give an
                // option again; whether it is a second group is known at
                // the end.
                repeatedOnce.append((name, groups))
            }
            if name == "output" { groups += 1 }
            guard let shape = spec.value else {
                guard inlineValue == nil else {
                    throw UsageError(message: "option '--\(name)' takes no value")
                }
                flags.insert(name)
                ordered.append((name, nil))
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "option '--\(name)' needs a value (\(shape))")
                }
                value = arguments[index]
                index += 1
            }
            // `--selection 10 10 100 100`: the numbers came apart.
            if let separator = Self.separator(of: shape), Double(value) != nil,
                index < arguments.count, Double(arguments[index]) != nil
            {
                let count = shape.split(separator: separator).count
                let pieces =
                    [value]
                    + arguments[index...].prefix(count - 1)
                    .prefix(while: { Double($0) != nil })
                throw UsageError(
                    message:
                        "--\(name) takes \(shape) as one word, the numbers joined by '\(separator)': --\(name) \(pieces.joined(separator: String(separator)))"
                )
            }
            values[name] = value
            repeated[name, default: []].append(value)
            ordered.append((name, value))
        }
        // An option given twice is an error, unless a later -o began a new
        // group for it and the command takes groups (several outputs).
        for (name, group) in repeatedOnce {
            let groupStarts = ordered.enumerated().filter { $0.element.name == "output" }.map(
                \.offset)
            guard groupStarts.count > 1 else {
                throw UsageError(message: "option '--\(name)' given more than once")
            }
            // Within the same group, still an error.
            var seen = 0
            var counts = 0
            for option in ordered {
                if option.name == "output" { seen += 1 }
                if seen == group, option.name == name { counts += 1 }
            }
            if counts > 1 || group == 0 {
                throw UsageError(message: "option '--\(name)' given more than once for one output")
            }
        }
    }

    /// The character between the numbers of a value shaped like `X,Y,W,H`
    /// or `WxH`, or `nil` for a single value.
    static func separator(of shape: String) -> Character? {
        if shape.contains(",") { return "," }
        if shape.count >= 3, shape.contains("x"),
            shape.uppercased() == shape.replacingOccurrences(of: "x", with: "X")
        {
            return "x"
        }
        return nil
    }

    /// "; did you mean --selection?" for the option whose name is closest to
    /// `name` (a few edits away, or a prefix of one), or nothing; `--help`,
    /// which every subcommand takes, is one of the candidates.
    static func suggestion(for name: String, among specs: [OptionSpec]) -> String {
        guard let closest = closest(to: name, among: specs.map(\.name) + ["help"]) else {
            return ""
        }
        return "; did you mean '--\(closest)'?"
    }

    /// The word of `candidates` nearest to `word` (``Spelling/closest(to:among:)``).
    package static func closest(to word: String, among candidates: [String]) -> String? {
        Spelling.closest(to: word, among: candidates)
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

extension OptionSpec {
    /// `-f, --force`: replace an output that exists.
    static func force(_ help: String) -> OptionSpec {
        OptionSpec(name: "force", value: nil, help: help, short: "f")
    }

    /// `-j, --json`: the report as JSON.
    static func json(_ help: String) -> OptionSpec {
        OptionSpec(name: "json", value: nil, help: help, short: "j")
    }

    /// `-q, --quiet`: standard output's report is dropped; errors and
    /// warnings still go to standard error.
    static let quiet = OptionSpec(
        name: "quiet", value: nil, help: "print nothing but errors and warnings", short: "q")
}

extension ParsedArguments {
    /// The FILE... arguments of a command that reads files (`info`,
    /// `leaks`): one or more.
    ///
    /// - Throws: ``UsageError`` when there is none.
    func files() throws(UsageError) -> [String] {
        guard !positionals.isEmpty else { throw UsageError(message: "give one FILE or more") }
        return positionals
    }
}

extension ParsedArguments {
    /// `--companion WxH` (a companion image's size as displayed), whole
    /// pixels from 1 to `maximum` a side; nil when it is not given.
    func companionSize(maximum: Int) throws(UsageError) -> PixelSize<ImagePixels>? {
        guard let text = values["companion"] else { return nil }
        let parts = text.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1],
            (1...maximum).contains(width), (1...maximum).contains(height)
        else {
            throw UsageError(
                message:
                    "--companion must be WxH in whole pixels from 1 to \(maximum) (e.g. 1008x756), not '\(text)'"
            )
        }
        return PixelSize(width: width, height: height)
    }
}
