import CropGeometry

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
                .text(
                    animation.plays == 0
                        ? "forever" : animation.plays == 1 ? "once" : "\(animation.plays) plays")),
            .init("durationMs", label: "duration ms", .number(animation.totalMilliseconds)),
            .init(
                "durations",
                .list(
                    Self.runs(
                        frames.map {
                            $0.duration.isWhole(in: 1000)
                                ? "\($0.duration.milliseconds)ms"
                                : "\($0.duration.numerator)/\($0.duration.denominator)s"
                        }))),
            .init("disposal", .list(Self.runs(frames.map(\.disposal.rawValue)))),
            .init("blend", .list(Self.runs(frames.map(\.blend.rawValue)))),
            .init(
                "frameRects", label: "frame rects",
                .list(
                    Self.runs(
                        frames.map {
                            "\($0.rect.x),\($0.rect.y),\($0.rect.width)x\($0.rect.height)"
                        }))),
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
                .init("background", .text("#" + background.joined() + " (BGRA, as stored)")),
                .init(
                    "metadataChunks", label: "metadata",
                    .list(
                        [("ICCP", webp.icc), ("EXIF", webp.exif), ("XMP", webp.xmp)]
                            .filter { $0.1 != nil }.map(\.0))),
            ]
        }
        details.append(
            .init("cropDrops", label: "crop drops", .list(droppedMetadata(into: animation.format))))
        return ImageFileSummary(
            format: animation.format, storedSize: animation.canvas, orientation: .up,
            colorSpace: colour, bitDepth: animation.bitDepth, profile: nil, details: details,
            warnings: animation.warnings)
    }

    private static func gifData(_ frame: AnimationFrame) -> GIFFrameData? {
        if case .gif(let data) = frame.data { return data }
        return nil
    }

    /// `values` run-length: a value repeated in a row once, `*N` after it.
    static func runs(_ values: [String]) -> [String] {
        var out: [String] = []
        var index = 0
        while index < values.count {
            var end = index + 1
            while end < values.count && values[end] == values[index] { end += 1 }
            out.append(end - index > 1 ? "\(values[index])*\(end - index)" : values[index])
            index = end
        }
        return out
    }
}
