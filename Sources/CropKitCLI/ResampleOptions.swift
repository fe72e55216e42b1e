import CropGeometry
import CropImaging
import CropRecords

/// The options that turn and resize a crop (`crop`, `verify`): the angle,
/// the output size, the filter and the fill.
enum ResampleOptions {
    static let specs: [OptionSpec] = [
        OptionSpec(
            name: "angle", value: "DEG",
            help: "straighten: turn the image by DEG degrees, positive clockwise on screen"),
        OptionSpec(
            name: "inside", value: nil,
            help:
                "crop the largest rect inside the turned image (of --aspect if given): no fill"),
        OptionSpec(
            name: "size", value: "WxH", help: "resize the crop to exactly W×H pixels"),
        OptionSpec(
            name: "fit", value: "WxH",
            help: "resize the crop to the largest size inside W×H, keeping its aspect"),
        OptionSpec(name: "width", value: "W", help: "resize the crop to W pixels wide"),
        OptionSpec(name: "height", value: "H", help: "resize the crop to H pixels high"),
        OptionSpec(
            name: "filter", value: "F",
            help:
                "nearest, bilinear or lanczos3 (default: lanczos3 when reducing, else bilinear)"),
        OptionSpec(
            name: "circle", value: nil,
            help:
                "cut the output to the ellipse inscribed in it (a circle when square): transparent outside, exact coverage on the edge"
        ),
        OptionSpec(
            name: "fill", value: "COLOR",
            help: "outside the image: transparent (default; JPEG: white) or #rrggbb"),
    ]

    /// The resampling the flags ask for (none by default).
    static func resampling(_ parsed: ParsedArguments) throws(UsageError) -> CropJob.Resampling {
        var resampling = CropJob.Resampling()
        if let text = parsed.values["angle"] {
            guard let angle = Double(text), angle.isFinite else {
                throw UsageError(
                    message: "--angle must be a finite number of degrees, not '\(text)'")
            }
            resampling.angle = angle
        }
        let sizeFlags = ["size", "fit", "width", "height"].filter { parsed.values[$0] != nil }
        if sizeFlags.count > 1 {
            throw UsageError(
                message:
                    "--\(sizeFlags[0]) and --\(sizeFlags[1]) do not go together: give one output size"
            )
        }
        func box(_ option: String) throws(UsageError) -> PixelSize<StraightenedPixels>? {
            guard let text = parsed.values[option] else { return nil }
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0,
                w <= 1 << 20, h <= 1 << 20
            else {
                throw UsageError(
                    message:
                        "--\(option) must be WxH with whole numbers from 1 to 1048576, not '\(text)'"
                )
            }
            return PixelSize(width: w, height: h)
        }
        func side(_ option: String) throws(UsageError) -> Int? {
            guard let text = parsed.values[option] else { return nil }
            guard let value = Int(text), value > 0, value <= 1 << 20 else {
                throw UsageError(
                    message: "--\(option) must be a whole number from 1 to 1048576, not '\(text)'")
            }
            return value
        }
        if let exact = try box("size") { resampling.size = .exact(exact) }
        if let fit = try box("fit") { resampling.size = .fit(fit) }
        if let width = try side("width") { resampling.size = .width(width) }
        if let height = try side("height") { resampling.size = .height(height) }
        if let text = parsed.values["filter"] {
            guard let filter = ResamplingFilter(rawValue: text.lowercased()) else {
                throw UsageError(
                    message: "--filter must be nearest, bilinear or lanczos3, not '\(text)'")
            }
            resampling.filter = filter
        }
        if let text = parsed.values["fill"] {
            guard let fill = FillColor(parsing: text) else {
                throw UsageError(
                    message:
                        "--fill must be transparent, white, black or #rrggbb, not '\(text)'")
            }
            resampling.fill = fill
        }
        resampling.ellipse = parsed.flags.contains("circle")
        return resampling
    }
}

extension PixelRect {
    /// `{"x","y","width","height"}`, as every report writes a rect.
    var json: JSONValue {
        .object([
            .init("x", .number(x)), .init("y", .number(y)), .init("width", .number(width)),
            .init("height", .number(height)),
        ])
    }
}
