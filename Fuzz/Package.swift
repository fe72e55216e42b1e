// swift-tools-version:6.0
// libFuzzer targets for CropKit, kept in their own package: a fuzz target has
// no main (libFuzzer supplies it), so it only links when built with
//   swift build --sanitize=fuzzer --sanitize=address --product NAME
// which `swift build` in the main package would not do. Run them with
// ../scripts/fuzz.
import PackageDescription

let package = Package(
    name: "CropKitFuzz",
    dependencies: [.package(name: "CropKit", path: "..")],
    targets: [
        // Images are fuzzed in memory (ImageInput(bytes:)), through the
        // same pipeline a file takes.
        .target(
            name: "FuzzImageSupport",
            dependencies: [
                .product(name: "CropImaging", package: "CropKit"),
                .product(name: "CropGeometry", package: "CropKit"),
            ]),
        .executableTarget(
            name: "FuzzPNG",
            dependencies: ["FuzzImageSupport", .product(name: "CropImaging", package: "CropKit")]),
        .executableTarget(
            name: "FuzzJPEG",
            dependencies: ["FuzzImageSupport", .product(name: "CropImaging", package: "CropKit")]),
        // CropKit's JPEG entropy decoder, speculative from many split
        // points, against its serial decode.
        .executableTarget(
            name: "FuzzJPEGEntropy",
            dependencies: [
                .product(name: "CropImaging", package: "CropKit"),
                .product(name: "CropGeometry", package: "CropKit"),
            ]),
        .executableTarget(
            name: "FuzzHEIF",
            dependencies: [
                "FuzzImageSupport", .product(name: "CropImaging", package: "CropKit"),
                .product(name: "CropGeometry", package: "CropKit"),
            ]),
        .executableTarget(
            name: "FuzzAVIF",
            dependencies: [
                "FuzzImageSupport", .product(name: "CropImaging", package: "CropKit"),
                .product(name: "CropGeometry", package: "CropKit"),
            ]),
        .executableTarget(
            name: "FuzzWebP",
            dependencies: [
                "FuzzImageSupport", .product(name: "CropImaging", package: "CropKit"),
                .product(name: "CropGeometry", package: "CropKit"),
            ]),
        .executableTarget(
            name: "FuzzGIF",
            dependencies: ["FuzzImageSupport", .product(name: "CropImaging", package: "CropKit")]),
        .executableTarget(
            name: "FuzzAPNG",
            dependencies: ["FuzzImageSupport", .product(name: "CropImaging", package: "CropKit")]),
        .executableTarget(
            name: "FuzzAnimatedWebP",
            dependencies: ["FuzzImageSupport", .product(name: "CropImaging", package: "CropKit")]),
        .executableTarget(
            name: "FuzzRecord",
            dependencies: [
                .product(name: "CropGeometry", package: "CropKit"),
                .product(name: "CropRecords", package: "CropKit"),
            ]),
        .executableTarget(
            name: "FuzzMapFlags", dependencies: [.product(name: "CropKitCLI", package: "CropKit")]),
        .executableTarget(
            name: "FuzzXMP", dependencies: [.product(name: "CropImaging", package: "CropKit")]),
        .executableTarget(
            name: "FuzzManifest",
            dependencies: [
                .product(name: "CropKitCLI", package: "CropKit"),
                .product(name: "CropImaging", package: "CropKit"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
