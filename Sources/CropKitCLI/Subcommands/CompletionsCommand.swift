import CropGeometry

/// `cropkit completions`: a shell completion script, generated from the same
/// option tables the parser and `--help` use, so it cannot drift from them.
struct CompletionsCommand: Subcommand {
    static let name = "completions"
    static let summary = "print a completion script for bash, zsh or fish"
    static let usage = """
        Usage: cropkit completions bash|zsh|fish

        Prints a script that completes cropkit's subcommands, their options,
        the content modes and file names. Install it as each shell expects:
          bash: cropkit completions bash > ~/.local/share/bash-completion/completions/cropkit
          zsh:  cropkit completions zsh > ~/.zfunc/_cropkit  (with ~/.zfunc in fpath)
          fish: cropkit completions fish > ~/.config/fish/completions/cropkit.fish
        """
    static let options: [OptionSpec] = []

    /// The shells a script can be made for.
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    var shell: Shell

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let names = Shell.allCases.map(\.rawValue).joined(separator: ", ")
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "name one shell: \(names)")
        }
        guard let shell = Shell(rawValue: parsed.positionals[0]) else {
            throw UsageError(
                message: "unknown shell '\(parsed.positionals[0])'; use one of \(names)")
        }
        self.shell = shell
    }

    func run(console: Console) -> Int32 {
        console.out.write(Self.script(for: shell))
        return ExitCode.success
    }

    /// Every subcommand with the options it takes (`--help` included).
    static var commands: [(name: String, summary: String, options: [OptionSpec])] {
        CropKitTool.subcommands.map { command in
            (
                command.name, command.summary,
                command.options + [OptionSpec(name: "help", value: nil, help: "show this help")]
            )
        }
    }

    static let modes = ContentMode.allCases.map(\.rawValue).joined(separator: " ")

    /// The script for `shell`.
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    static var bash: String {
        let names = commands.map(\.name).joined(separator: " ")
        let cases = commands.map { command in
            let words = command.options.flatMap { option in
                ["--\(option.name)"] + (option.short.map { ["-\($0)"] } ?? [])
            }
            let valued = command.options.filter { $0.value != nil }.flatMap { option in
                ["--\(option.name)"] + (option.short.map { ["-\($0)"] } ?? [])
            }
            return """
                        \(command.name))
                          opts="\(words.joined(separator: " "))"
                          valued=" \(valued.joined(separator: " ")) " ;;
                """
        }.joined(separator: "\n")
        return """
            # bash completion for cropkit, made by 'cropkit completions bash'
            _cropkit() {
              local cur prev opts valued
              cur="${COMP_WORDS[COMP_CWORD]}"
              prev="${COMP_WORDS[COMP_CWORD-1]}"
              if [ "$COMP_CWORD" -eq 1 ]; then
                COMPREPLY=($(compgen -W "\(names) --help --version" -- "$cur"))
                return
              fi
              case "${COMP_WORDS[1]}" in
            \(cases)
                *) return ;;
              esac
              if [ "$prev" = "--mode" ]; then
                COMPREPLY=($(compgen -W "\(modes)" -- "$cur"))
                return
              fi
              if [[ "$valued" == *" $prev "* ]] || [[ "$cur" != -* ]]; then
                COMPREPLY=($(compgen -f -- "$cur"))
              else
                COMPREPLY=($(compgen -W "$opts" -- "$cur"))
              fi
            }
            complete -o filenames -F _cropkit cropkit

            """
    }

    /// Text safe inside a zsh `_arguments` spec's brackets and quotes.
    static func zshText(_ text: String) -> String {
        String(
            text.map { "[]:'\\".contains($0) ? " " : $0 })
    }

    static var zsh: String {
        let described = commands.map { "    '\($0.name):\(zshText($0.summary))'" }
            .joined(separator: "\n")
        let cases = commands.map { command in
            let specs = command.options.map { option -> String in
                let action: String
                switch option.value {
                case nil: action = ""
                case "MODE": action = ":mode:(\(modes))"
                default: action = ":\(zshText(option.value ?? "")):_files"
                }
                let help = zshText(option.help)
                if let short = option.short {
                    return
                        "'(-\(short) --\(option.name))'{-\(short),--\(option.name)}'[\(help)]\(action)'"
                }
                return "'--\(option.name)[\(help)]\(action)'"
            }
            return "    \(command.name))\n      _arguments \\\n        "
                + (specs + ["'*:file:_files'"]).joined(separator: " \\\n        ") + " ;;"
        }.joined(separator: "\n")
        return """
            #compdef cropkit
            # zsh completion for cropkit, made by 'cropkit completions zsh'
            _cropkit() {
              local -a subcommands
              subcommands=(
            \(described)
              )
              if (( CURRENT == 2 )); then
                _describe 'subcommand' subcommands
                return
              fi
              shift words
              (( CURRENT-- ))
              case $words[1] in
            \(cases)
              esac
            }
            _cropkit "$@"

            """
    }

    /// Text safe inside a fish single-quoted string.
    static func fishText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "'", with: "\\'")
    }

    static var fish: String {
        var lines = [
            "# fish completion for cropkit, made by 'cropkit completions fish'",
            "complete -c cropkit -f",
            "complete -c cropkit -n __fish_use_subcommand -l version -d 'print the version'",
        ]
        for command in commands {
            lines.append(
                "complete -c cropkit -n __fish_use_subcommand -a \(command.name) -d '\(fishText(command.summary))'"
            )
            let condition = "-n '__fish_seen_subcommand_from \(command.name)'"
            lines.append("complete -c cropkit \(condition) -F")
            for option in command.options {
                var line = "complete -c cropkit \(condition)"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.name)"
                if option.value == "MODE" {
                    line += " -x -a '\(modes)'"
                } else if option.value != nil {
                    line += " -r -F"
                }
                line += " -d '\(fishText(option.help))'"
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
