import CropGeometry

/// One `cropkit` subcommand: parsed and validated once, then run.
package protocol Subcommand: Sendable {
    /// The word after `cropkit`.
    static var name: String { get }
    /// One line for `cropkit --help`.
    static var summary: String { get }
    /// The usage line(s) and discussion shown above the options.
    static var usage: String { get }
    /// The options it accepts, which its help lists.
    static var options: [OptionSpec] { get }

    /// Validates the command line; a problem is a usage error (exit 64).
    init(_ parsed: ParsedArguments) throws(UsageError)

    /// Does the work and returns the exit code.
    func run(console: Console) -> Int32
}

extension Subcommand {
    /// The whole `--help` text: usage, then the options table, then the
    /// content modes when `--mode` is one of the options.
    package static var help: String {
        var text =
            usage + "\n\nOptions:\n"
            + optionsHelp(options + [OptionSpec(name: "help", value: nil, help: "show this help")])
            + "\n"
        if options.contains(where: { $0.name == "mode" }) {
            text += "\nModes (--mode), as UIKit's UIView.ContentMode:\n" + modesHelp + "\n"
        }
        return text
    }
}

/// The exit codes every subcommand uses.
enum ExitCode {
    static let success: Int32 = 0
    /// A check or a record failed, or the mapping rejected the input.
    static let failure: Int32 = 1
    /// The input data is bad (a file that cannot be read or decoded).
    static let badInput: Int32 = 2
    static let usage: Int32 = 64
}

/// The twelve content modes, a few to a line.
let modesHelp: String = {
    var lines: [String] = []
    var line = " "
    for mode in ContentMode.allCases.map(\.rawValue) {
        if line.count + mode.count + 2 > 78 {
            lines.append(line)
            line = " "
        }
        line += " " + mode
    }
    lines.append(line)
    return lines.joined(separator: "\n")
}()
