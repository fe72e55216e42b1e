import CropGeometry
import CropRecords

extension AnimatedImage {
    /// What `cropkit info` shows of an animation, read without decoding a
    /// pixel: the canvas and colour, then the timeline (frames, plays,
    /// durations, disposal and blend, the frames' rects, how many are
    /// lossless), the container's own details, and the metadata a crop
    /// drops.
    ///
    /// Lists of one value a frame are run-length: `70ms*3` is three frames
    /// of 70 ms in a row.
    public var summary: ImageFileSummary {
        let frames = animation.frames
        var details: [ImageFileSummary.Detail] = [
            .init("animated", .flag(true)),
            .init("frames", .number(frames.count)),
            .init("plays", .number(animation.plays)),
            .init(
                "loop",
                .typed(
                    .object([
                        .init("forever", .bool(animation.plays == 0)),
                        .init("plays", animation.plays == 0 ? .null : .number(animation.plays)),
                    ]),
                    text: animation.plays == 0
                        ? "forever" : animation.plays == 1 ? "once" : "\(animation.plays) plays")),
            .init("durationMs", label: "duration ms", .number(animation.totalMilliseconds)),
            .init(
                "durations",
                Self.entryRuns(
                    frames.map { frame in
                        let duration = frame.duration
                        return (
                            duration.isWhole(in: 1000)
                                ? "\(duration.milliseconds)ms"
                                : "\(duration.numerator)/\(duration.denominator)s",
                            [
                                .init(
                                    "milliseconds",
                                    .number(
                                        (Double(duration.numerator) * 100_000
                                            / Double(max(1, duration.denominator))).rounded() / 100)
                                ),
                                .init("numerator", .number(duration.numerator)),
                                .init("denominator", .number(duration.denominator)),
                            ]
                        )
                    })),
            .init("disposal", Self.valueRuns(frames.map(\.disposal.rawValue))),
            .init("blend", Self.valueRuns(frames.map(\.blend.rawValue))),
            .init(
                "frameRects", label: "frame rects",
                Self.entryRuns(
                    frames.map { frame in
                        let rect = frame.rect
                        return (
                            "\(rect.x),\(rect.y),\(rect.width)x\(rect.height)",
                            [
                                .init("x", .number(rect.x)), .init("y", .number(rect.y)),
                                .init("width", .number(rect.width)),
                                .init("height", .number(rect.height)),
                            ]
                        )
                    })),
            .init(
                "losslessFrames", label: "lossless",
                .number(frames.filter(\.isLossless).count)),
        ]
        let colour: String
        switch animation.details {
        case .gif(let gif):
            colour = "indexed"
            details += [
                .init("version", .text(gif.version)),
                .init(
                    "globalColours", label: "global table",
                    .number((gif.globalColours?.count ?? 0) / 3)),
                .init(
                    "localColourTables", label: "local tables",
                    .number(frames.filter { Self.gifData($0)?.localColours != nil }.count)),
                .init(
                    "interlacedFrames", label: "interlaced",
                    .number(frames.filter { Self.gifData($0)?.interlaced == true }.count)),
                .init(
                    "transparentFrames", label: "transparent",
                    .number(frames.filter { Self.gifData($0)?.transparentIndex != nil }.count)),
                .init(
                    "extensions",
                    .list(
                        gif.applicationExtensions.map(\.name)
                            + (gif.comments > 0 ? ["comment"] : []))),
            ]
        case .png(let png):
            colour = png.colorType.name
            details += [
                .init(
                    "hiddenDefaultImage", label: "hidden image",
                    .flag(png.hiddenDefault != nil)),
                .init("interlaced", .flag(png.interlaced)),
                .init("colourChunks", label: "chunks kept", .list(png.colourChunks.map(\.type))),
                .init("otherChunks", label: "other chunks", .list(png.otherChunks)),
            ]
        case .webp(let webp):
            colour = webp.hasAlpha ? "rgba" : "rgb"
            let background = webp.background.map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return digits.count == 1 ? "0" + digits : digits
            }
            details += [
                .init(
                    "background",
                    .typed(
                        .object(
                            zip(["blue", "green", "red", "alpha"], webp.background).map {
                                .init($0, .number(Int($1)))
                            }), text: "#" + background.joined() + " (BGRA, as stored)")),
                .init(
                    "metadataChunks", label: "metadata",
                    .list(
                        [("ICCP", webp.icc), ("EXIF", webp.exif), ("XMP", webp.xmp)]
                            .filter { $0.1 != nil }.map(\.0))),
            ]
        }
        details.append(
            .init(
                "cropDrops", label: "crop drops",
                .entries(
                    droppedMetadataItems(into: animation.format).map {
                        .init(
                            "\($0.what): \($0.reason)",
                            .object([
                                .init("what", .string($0.what)),
                                .init("reason", .string($0.reason)),
                            ]))
                    })))
        return ImageFileSummary(
            format: animation.format, storedSize: animation.canvas, orientation: .up,
            colorSpace: colour, bitDepth: animation.bitDepth, profile: nil, details: details,
            warnings: animation.warnings)
    }

    private static func gifData(_ frame: AnimationFrame) -> GIFFrameData? {
        if case .gif(let data) = frame.data { return data }
        return nil
    }

    /// A run-length list of names: `none*2` for people, `{"value":
    /// "none", "frames": 2}` for programs.
    static func valueRuns(_ values: [String]) -> ImageFileSummary.Detail.Value {
        entryRuns(values.map { ($0, [.init("value", .string($0))]) })
    }

    /// One value a frame, run-length: a phrase repeated in a row is shown
    /// once with `*N` after it, and its object gains `"frames": N`.
    static func entryRuns(_ values: [(text: String, members: [JSONValue.Member])])
        -> ImageFileSummary.Detail.Value
    {
        .entries(runs(values))
    }

    private static func runs(_ values: [(text: String, members: [JSONValue.Member])])
        -> [ImageFileSummary.Detail.Entry]
    {
        var out: [ImageFileSummary.Detail.Entry] = []
        var index = 0
        while index < values.count {
            var end = index + 1
            while end < values.count && values[end].text == values[index].text { end += 1 }
            let count = end - index
            out.append(
                .init(
                    count > 1 ? "\(values[index].text)*\(count)" : values[index].text,
                    .object(values[index].members + [.init("frames", .number(count))])))
            index = end
        }
        return out
    }
}
