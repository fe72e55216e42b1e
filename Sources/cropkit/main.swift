import CropKitCLI
import Foundation

exit(CropKitTool.run(Array(CommandLine.arguments.dropFirst()), console: .standard()))
