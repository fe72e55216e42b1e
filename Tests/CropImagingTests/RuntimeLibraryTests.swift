import CropImaging
import CropKitTestSupport
import Testing

/// The one `dlopen` loader: versioned sonames, required and optional
/// functions, nothing left pointing into a library it refused.
@Suite(.announcesSkips) struct RuntimeLibraryTests {
    /// zlib is linked into every build, so its soname always opens.
    #if os(Linux)
        static let zlib = "libz.so.1"
    #else
        static let zlib = "libz.1.dylib"
    #endif

    @Test func aLibraryWithEveryFunctionLoads() {
        #expect(
            RuntimeLibrary.probe(soname: Self.zlib, required: "zlibVersion", optional: "inflate")
                == .loaded(optionalFound: true))
    }

    @Test func aMissingOptionalFunctionIsLeftOut() {
        #expect(
            RuntimeLibrary.probe(
                soname: Self.zlib, required: "zlibVersion", optional: "cropkit_no_such_function")
                == .loaded(optionalFound: false))
    }

    @Test func aMissingRequiredFunctionRefusesTheLibraryAndClearsItsTable() {
        // The optional function exists: a loader that filled the table as
        // it went and did not clear it would leave a pointer behind.
        #expect(
            RuntimeLibrary.probe(
                soname: Self.zlib, required: "cropkit_no_such_function", optional: "zlibVersion")
                == .absent)
    }

    @Test func anAbsentSonameIsAbsent() {
        #expect(
            RuntimeLibrary.probe(
                soname: "libcropkit-no-such-library.so.9", required: "zlibVersion",
                optional: "inflate") == .absent)
    }

    @Test(arguments: RuntimeLibrary.allCases)
    func eachLibraryNamesItsPackageWhenMissing(_ library: RuntimeLibrary) {
        let message = library.missing.description
        #expect(message.hasSuffix("is not installed (Debian: \(library.debianPackage))"))
        #expect(message.hasPrefix(library.name))
        #expect(library.missing.code == .unsupported)
        #expect(library.soname.hasPrefix("lib") && library.soname.contains(".so."))  // Linux's
    }

    /// Each library installed here (each one missing counts a skip, which
    /// the run's closing line reports).
    @Test(
        arguments: RuntimeLibrary.allCases.filter {
            TestGate.holds($0.isAvailable, else: "without \($0.name)")
        })
    func anInstalledLibraryLoadsByItsVersionedSoname(_ library: RuntimeLibrary) {
        // The soname the loader tries first is the one that is installed
        // (a library found only under an unversioned name would pass
        // isAvailable but fail here).
        let function =
            switch library {
            case .libdeflate: "libdeflate_alloc_compressor"
            case .isal: "isal_inflate"
            case .libheif: "heif_get_version"
            case .libwebp: "WebPIDecode"
            case .libavif: "avifDecoderCreate"
            }
        #expect(
            RuntimeLibrary.probe(soname: library.soname, required: function, optional: function)
                == .loaded(optionalFound: true))
        #expect(throws: Never.self) { try library.require() }
    }
}
