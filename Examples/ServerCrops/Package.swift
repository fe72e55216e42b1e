// swift-tools-version:6.0
import PackageDescription

// A server's package that crops manifests with CropKit's batch engine and
// depends on nothing but the CropImaging library (no CLI, no test support).
let package = Package(
    name: "ServerCrops",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "CropKit", path: "../..")],
    targets: [
        .executableTarget(
            name: "server-crops",
            dependencies: [.product(name: "CropImaging", package: "CropKit")]),
        .testTarget(
            name: "ServerCropsTests",
            dependencies: [.product(name: "CropImaging", package: "CropKit")]),
    ],
    swiftLanguageModes: [.v6]
)
