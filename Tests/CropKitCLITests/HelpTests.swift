import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

/// Each subcommand's `--help` against the options it accepts: every option
/// it takes is in its help, and every option its help names, it takes.
@Suite(.announcesSkips) struct HelpTests {
    static let names = CropKitTool.subcommands.map { $0.name }

    @Test(arguments: names)
    func helpListsExactlyTheOptionsAccepted(name: String) throws {
        let command = try #require(CropKitTool.subcommands.first { $0.name == name })
        let help = cropkit(name, "--help")
        #expect(help.status == 0)
        #expect(help.out == command.help)
        for option in command.options {
            #expect(help.out.contains("--\(option.name)"), "\(name) --help omits --\(option.name)")
            if let short = option.short {
                #expect(help.out.contains("-\(short), --\(option.name)"))
            }
        }
        // Every option the help text names is one the parser takes.
        let accepted = Set(command.options.map(\.name) + ["help"])
        let named = Set(
            help.out.matches(of: /--([a-z][a-z0-9-]*)/).map { String($0.output.1) })
        #expect(
            named.subtracting(accepted).isEmpty,
            "\(name) --help names \(named.subtracting(accepted))")
        // The parser takes each of them (parsed only: running `demo --output
        // 1` would write a folder).
        for spec in command.options {
            let arguments = ["--\(spec.name)"] + (spec.value == nil ? [] : ["1"])
            #expect(throws: Never.self, "\(name) rejects --\(spec.name)") {
                _ = try ParsedArguments(arguments, specs: command.options)
            }
        }
        #expect(throws: UsageError.self) {
            _ = try ParsedArguments(["--no-such-option"], specs: command.options)
        }
    }
}
