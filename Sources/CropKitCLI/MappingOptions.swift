import CropGeometry
import CropImaging
import CropRecords

/// The flags that describe one mapping, shared by every command that maps a
/// view selection (`map`, and later `crop`, `verify`, `explain`).
struct MappingOptions {
    var request: CropRequest
    var aspect: AspectChoice?
    /// Whether `--orientation` was given (a file's own orientation yields to it).
    var orientationGiven = false

    static let specs: [OptionSpec] = [
        OptionSpec(
            name: "source", value: "WxH", help: "stored pixel size of the image, e.g. 4000x3000"),
        OptionSpec(name: "viewport", value: "WxH", help: "size of the image view, in points"),
        OptionSpec(
            name: "selection", value: "X,Y,W,H", help: "the selection, in the view's points"),
        OptionSpec(
            name: "mode", value: "MODE",
            help: "content mode, as UIKit's (default aspectFit; the modes are listed below)"),
        OptionSpec(
            name: "image-scale", value: "S",
            help: "pixels per point of natural size (unscaled modes; default 1)"),
        OptionSpec(name: "zoom", value: "Z", help: "zoom scale (default 1)"),
        OptionSpec(
            name: "offset", value: "X,Y", help: "zoom content offset, in points (default 0,0)"),
        OptionSpec(name: "orientation", value: "N", help: "EXIF orientation 1-8 (default 1)"),
        OptionSpec(
            name: "aspect", value: "P:Q",
            help: "snap to exactly this ratio, e.g. 1:1, 4:5, 16:9, or 'source'"),
    ]

    /// `--source-file FILE`, instead of `--source` (`map`, `explain`).
    static let sourceFileSpec = OptionSpec(
        name: "source-file", value: "FILE",
        help: "take the source size and EXIF orientation from an image (instead of --source)")

    /// The specs without `--source`, for commands that read the size (and
    /// the orientation, by default) from a file.
    static func viewSpecs(orientationDefault: String) -> [OptionSpec] {
        specs.filter { $0.name != "source" }.map { spec in
            guard spec.name == "orientation" else { return spec }
            var given = spec
            given.help = "EXIF orientation 1-8 (default: \(orientationDefault))"
            return given
        }
    }

    /// Reads the flags; syntax errors are usage errors, values the contract
    /// rejects (a negative size, NaN) are left for the mapping to explain.
    ///
    /// - Parameters:
    ///   - selectionOverride: The `--selection` text to use, for commands
    ///     that take several; by default the option's own value.
    ///   - sourceFromFile: Whether the source size comes from a file read
    ///     later (`--source` is then not an option; 1x1 stands in).
    init(
        _ parsed: ParsedArguments, selectionText selectionOverride: String? = nil,
        sourceFromFile: Bool = false
    )
        throws(UsageError)
    {
        let sourceText: String
        if sourceFromFile {
            sourceText = "1x1"
        } else {
            guard let text = parsed.values["source"] else {
                throw UsageError(message: "missing --source WxH")
            }
            sourceText = text
        }
        guard let viewportText = parsed.values["viewport"] else {
            throw UsageError(message: "missing --viewport WxH")
        }
        guard let selectionText = selectionOverride ?? parsed.values["selection"] else {
            throw UsageError(message: "missing --selection X,Y,W,H")
        }
        let source = try numbers(
            sourceText, separator: "x", count: 2, option: "source", shape: "WxH")
        let viewport = try numbers(
            viewportText, separator: "x", count: 2, option: "viewport", shape: "WxH")
        let selection = try numbers(
            selectionText, separator: ",", count: 4, option: "selection", shape: "X,Y,W,H")
        var mode = ContentMode.aspectFit
        if let modeText = parsed.values["mode"] {
            guard let parsedMode = ContentMode(rawValue: modeText) else {
                throw UsageError(
                    message: "unknown --mode '\(modeText)'; use one of "
                        + ContentMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            mode = parsedMode
        }
        let imageScale =
            try parsed.values["image-scale"].map { t throws(UsageError) in
                try numbers(t, separator: ",", count: 1, option: "image-scale", shape: "S")[0]
            } ?? 1
        let zoomScale =
            try parsed.values["zoom"].map { t throws(UsageError) in
                try numbers(t, separator: ",", count: 1, option: "zoom", shape: "Z")[0]
            } ?? 1
        let offset =
            try parsed.values["offset"].map { t throws(UsageError) in
                try numbers(t, separator: ",", count: 2, option: "offset", shape: "X,Y")
            } ?? [0, 0]
        var orientation = EXIFOrientation.up
        if let text = parsed.values["orientation"] {
            guard let value = Int(text), let parsedOrientation = EXIFOrientation(rawValue: value)
            else {
                throw UsageError(
                    message: "--orientation must be a whole number from 1 to 8, not '\(text)'")
            }
            orientation = parsedOrientation
            orientationGiven = true
        }
        if let text = parsed.values["aspect"] {
            if let choice = AspectChoice(parsing: text) {
                aspect = choice
            } else {
                throw UsageError(
                    message:
                        "--aspect must be P:Q with positive whole numbers (e.g. 4:5) or 'source', not '\(text)'"
                )
            }
        }
        request = CropRequest(
            sourceSize: Size(width: source[0], height: source[1]),
            viewport: Size(width: viewport[0], height: viewport[1]),
            selection: Rect(
                x: selection[0], y: selection[1], width: selection[2], height: selection[3]),
            mode: mode, imageScale: imageScale,
            zoom: Zoom(scale: zoomScale, offset: Vector(dx: offset[0], dy: offset[1])),
            orientation: orientation)
    }

    /// Takes the source size, and the EXIF orientation unless
    /// `--orientation` was given, from the image at `path` (`--source-file`).
    mutating func takeSource(fromFile path: String) throws(ImagingError) {
        let source = try ImageSource.open(path: path)
        request.sourceSize = Size(
            width: Double(source.storedSize.width), height: Double(source.storedSize.height))
        if !orientationGiven { request.orientation = source.orientation }
    }

    /// The mapping, snapped to the aspect ratio when one was asked for.
    func map() -> Result<CropResult, CropRejection> {
        Result { () throws(CropRejection) in try request.map(aspect: aspect) }
    }

    /// The record these flags describe, as `map --json` prints it.
    var record: CropRecord { CropRecord(request: request, aspect: aspect, expected: nil) }
}

/// Splits `text` into `count` numbers; `nan`, `inf` and `-inf` are numbers too
/// (the mapping then rejects them with its reason).
func numbers(_ text: String, separator: Character, count: Int, option: String, shape: String)
    throws(UsageError)
    -> [Double]
{
    let parts = text.split(separator: separator, omittingEmptySubsequences: false)
    let values = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == count, values.count == count else {
        throw UsageError(message: "--\(option) must be \(shape), not '\(text)'")
    }
    return values
}
