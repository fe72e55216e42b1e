// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CropKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "CropGeometry", targets: ["CropGeometry"]),
        .library(name: "CropRecords", targets: ["CropRecords"]),
        .library(name: "CropTestKit", targets: ["CropTestKit"]),
        .library(name: "CropImaging", targets: ["CropImaging"]),
        .library(name: "CropKitCLI", targets: ["CropKitCLI"]),
        .executable(name: "cropkit", targets: ["cropkit"]),
    ],
    targets: [
        .target(name: "CropGeometry"),
        // The failure-record format and its JSON codec; Foundation only, like
        // CropGeometry, so an iOS test target can replay records too.
        .target(name: "CropRecords", dependencies: ["CropGeometry"]),
        // Test vectors, the grader and the checks an app's own crop and
        // export code are run against; Foundation only, for an iOS test
        // target, and nothing of XCTest or Swift Testing in it.
        .target(name: "CropTestKit", dependencies: ["CropGeometry", "CropRecords"]),
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng16",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        // Optimized in debug builds too: its loops (the JPEG entropy
        // decoder, PNG filters) run on every test's photos, and unoptimized
        // they cost the test run as much as the rest of a crop. SwiftPM
        // accepts the flag from a root, path or branch dependency (as the
        // README adds CropKit), and from a tagged one since Swift 6.2; a
        // tagged release for older toolchains would have to drop it.
        .target(
            name: "CImagingShims", dependencies: ["CPNG", "CZlib", "CJPEG"],
            cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Its export checks are CropTestKit's, run on crops it cuts.
        .target(
            name: "CropImaging",
            dependencies: ["CropGeometry", "CropRecords", "CropTestKit", "CImagingShims"]),
        .target(
            name: "CropKitCLI",
            dependencies: ["CropGeometry", "CropRecords", "CropImaging", "CropTestKit"]),
        .executableTarget(name: "cropkit", dependencies: ["CropKitCLI"]),
        // Fixtures, temporary folders and the corpora's location, shared by
        // every test target (a plain target: test targets cannot depend on
        // each other).
        .target(
            name: "CropKitTestSupport",
            dependencies: ["CropGeometry", "CropImaging", "CropTestKit", "CTestHooks"],
            path: "Tests/CropKitTestSupport"),
        // The test process's own hooks: line-buffered output, a first line
        // saying what the run skips and why, a closing line counting it.
        .target(name: "CTestHooks", path: "Tests/CTestHooks"),
        .testTarget(
            name: "CropGeometryTests",
            dependencies: ["CropGeometry", "CropRecords", "CropTestKit", "CropKitTestSupport"]),
        .testTarget(
            name: "CropImagingTests",
            dependencies: [
                "CropImaging", "CropGeometry", "CImagingShims", "CropKitTestSupport", "CropTestKit",
            ]),
        .testTarget(
            name: "CropKitCLITests",
            dependencies: [
                "CropKitCLI", "CropGeometry", "CropRecords", "CropImaging", "CropKitTestSupport",
                "CropTestKit",
            ]),
        .executableTarget(
            name: "MappingBenchmark",
            dependencies: ["CropGeometry", "CropRecords", "CropTestKit"],
            path: "Benchmarks/MappingBenchmark"
        ),
    ],
    swiftLanguageModes: [.v6]
)
