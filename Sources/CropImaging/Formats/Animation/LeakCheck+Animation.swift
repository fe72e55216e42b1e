import CropGeometry

extension LeakCheck {
    /// The findings in the file at `path`: a still image's
    /// (``findings(in:)``), or an animation's: frames reaching beyond the
    /// canvas (pixels no player shows), bytes after the container's end,
    /// and metadata that could show more (an embedded image, EXIF or XMP
    /// describing another size or holding a preview). An APNG's hidden
    /// default image is the canvas's size by construction; a crop cuts it
    /// with the frames.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public static func findings(path: String, limits: DecodeLimits = .standard)
        throws(ImagingError) -> [LeakFinding]
    {
        try findings(input: ImageInput(path: path), limits: limits)
    }

    /// ``findings(path:limits:)`` for a file already open, or held in
    /// memory (``ImageInput/init(bytes:name:)``).
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public static func findings(input: ImageInput, limits: DecodeLimits = .standard)
        throws(ImagingError) -> [LeakFinding]
    {
        guard let animated = try AnimatedImage(input, limits: limits, reading: .leakCheck) else {
            return try findings(in: ImageSource(input, limits: limits))
        }
        return try animationFindings(animated)
    }

    static func animationFindings(_ animated: AnimatedImage) throws(ImagingError) -> [LeakFinding] {
        let animation = animated.animation
        let input = animated.input
        let canvas = animation.canvas
        var found: [LeakFinding] = animation.framesBeyondCanvas.map { index in
            let rect = animation.frames[index].rect
            return LeakFinding(
                place: "frame \(index)", kind: .hiddenPixels,
                detail:
                    "its \(rect.width)x\(rect.height) at (\(rect.x),\(rect.y)) reaches beyond the \(canvas.width)x\(canvas.height) canvas: pixels no player shows are in the file"
            )
        }
        func metadata(_ range: ByteRange?, _ place: String, exif: Bool = false, xmp: Bool = false)
            throws(ImagingError)
        {
            guard let range, range.count <= 64 << 20 else { return }
            let data = try input.read(
                at: range.offset, count: range.count, format: animation.format)
            if let embedded = embeddedImage(data) {
                found.append(LeakFinding(place: place, kind: .embeddedImage, detail: embedded))
            }
            if exif {
                var tiff = data
                if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
                for leak in EXIFRewriter(tiff: tiff)?.leaks(size: canvas) ?? [] {
                    found.append(LeakFinding(place: place, leak))
                }
            }
            if xmp {
                found += xmpFindings(data, place: place)
                for stale in XMPRegions.staleDimensions(
                    in: String(decoding: data, as: UTF8.self), size: canvas)
                {
                    found.append(LeakFinding(place: place, kind: .staleDimensions, detail: stale))
                }
            }
        }
        switch animation.details {
        case .gif(let gif):
            for (name, blocks) in gif.applicationExtensions {
                try metadata(
                    blocks, "application extension \(name)", xmp: name.hasPrefix("XMP Data"))
            }
            if let end = animation.endOfImage, end < input.byteCount {
                found.append(
                    try trailingFinding(
                        place: "after the GIF trailer", end: end, input: input, format: .gif))
            }
        case .png:
            // The still PNG's rules: its chunks (eXIf, iTXt XMP, text) and
            // the bytes after IEND.
            let info = try PNGFileInfo.read(input, limits: animated.limits, deferringDataCRCs: true)
            found += try pngFindings(info, input: input, animated: true)
        case .webp(let webp):
            try metadata(webp.icc, "\"ICCP\" chunk")
            try metadata(webp.exif, "\"EXIF\" chunk", exif: true)
            try metadata(webp.xmp, "\"XMP \" chunk", xmp: true)
            if let end = animation.endOfImage, end < input.byteCount {
                found.append(
                    try trailingFinding(
                        place: "after the RIFF form", end: end, input: input, format: .webp))
            }
        }
        return found
    }
}
