import CropKitCLI
import CropKitTestSupport
import Foundation

/// What one in-process run of `cropkit` printed and returned.
struct Run {
    var status: Int32
    var out: String
    var err: String
}

/// Runs `cropkit` in this process, with `input` as standard input.
func cropkit(_ arguments: String..., input: String? = nil) -> Run {
    cropkit(arguments, input: input)
}

func cropkit(_ arguments: [String], input: String? = nil) -> Run {
    let out = StringSink()
    let err = StringSink()
    let console = Console(out: out, err: err, input: { input.map(LineReader.init(text:)) })
    let status = CropKitTool.run(arguments, console: console)
    return Run(status: status, out: out.text, err: err.text)
}

/// A fresh temporary folder, removed by the caller.
func temporaryFolder() throws -> URL { try TestData.temporaryFolder() }
