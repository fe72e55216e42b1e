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

    /// The turn and size the options ask for, checked by the library's
    /// ``ResamplingRequest`` (as a manifest line's members are).
    static func resampling(_ parsed: ParsedArguments) throws(UsageError) -> CropJob.Resampling {
        var request = ResamplingRequest()
        for field in ResamplingRequest.fields {
            if let value = parsed.values[field] { request.set(field, to: value) }
        }
        request.circle = parsed.flags.contains("circle")
        do throws(ResamplingRequestError) {
            return try request.resampling()
        } catch {
            throw UsageError(message: error.message { "--\($0)" })
        }
    }
}
