import Foundation

/// Runs a program to its end and keeps what it printed.
public enum Subprocess {
    /// `executable` run with `arguments`, its environment this process's
    /// with `environment` added: its exit status, standard output and
    /// standard error. For small outputs: each pipe is read to its end in
    /// turn, which cannot block the other below a pipe's buffer.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        let said = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: printed, as: UTF8.self),
            String(decoding: said, as: UTF8.self)
        )
    }
}
