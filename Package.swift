// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CropKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "CropGeometry", targets: ["CropGeometry"]),
        .executable(name: "cropkit", targets: ["cropkit"]),
    ],
    targets: [
        .target(name: "CropGeometry"),
        .target(name: "CropKitCLI", dependencies: ["CropGeometry"]),
        .executableTarget(name: "cropkit", dependencies: ["CropKitCLI"]),
        .testTarget(name: "CropGeometryTests", dependencies: ["CropGeometry"]),
        .testTarget(name: "CropKitCLITests", dependencies: ["CropKitCLI", "CropGeometry"]),
        .executableTarget(
            name: "MappingBenchmark",
            dependencies: ["CropGeometry"],
            path: "Benchmarks/MappingBenchmark"
        ),
    ],
    swiftLanguageModes: [.v6]
)
