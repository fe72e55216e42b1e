import CropGeometry

/// One frame decoded: its pixels as RGBA (what is composited) and, for a
/// lossless container, in the container's own form (a GIF's indices, an
/// APNG's samples), which a crop into the same container cuts and codes
/// again without changing a value.
struct DecodedFrame {
    /// The frame's pixels, RGBA at the animation's channel depth.
    var rgba: AnimationCanvas
    /// A GIF frame's palette indices, one byte a pixel, rows top to bottom.
    var indices: [UInt8]? = nil
    /// An APNG frame's samples in the file's colour type and bit depth.
    var samples: RasterImage? = nil
}

/// Decodes the frames of an ``Animation`` one at a time.
struct AnimationFrameDecoder {
    let animation: Animation
    let input: ImageInput
    let limits: DecodeLimits
    /// The inflater an APNG frame's data goes through.
    var inflater: Inflater = .automatic

    /// Frame `index` decoded.
    ///
    /// - Throws: ``ImagingError``, naming the frame.
    func decode(_ index: Int) throws(ImagingError) -> DecodedFrame {
        let frame = animation.frames[index]
        switch (frame.data, animation.details) {
        case (.gif(let data), .gif(let details)):
            return try decodeGIF(frame, data, details, index: index)
        case (.png(let pieces), .png(let details)):
            let samples = try decodePNG(
                pieces, details: details, size: frame.rect.size, what: "frame \(index)")
            return DecodedFrame(
                rgba: Self.rgba(samples, depth: animation.bitDepth), samples: samples)
        case (.webp(let data), _):
            return DecodedFrame(rgba: try decodeWebP(data, size: frame.rect.size, index: index))
        default:
            throw .corrupt(
                format: animation.format, detail: "frame \(index) is not of its container")
        }
    }

    /// The hidden default image of an APNG whose IDAT image is not a frame.
    func decodeHiddenDefault() throws(ImagingError) -> RasterImage? {
        guard case .png(let details) = animation.details, let pieces = details.hiddenDefault else {
            return nil
        }
        return try decodePNG(
            pieces, details: details, size: animation.canvas, what: "the default image")
    }

    // MARK: GIF

    /// A GIF frame's palette indices, rows top to bottom: only its first
    /// `rows` rows (a crop needs none below its own) unless the frame is
    /// interlaced, whose rows come in four passes. No RGBA is made.
    func gifIndices(_ index: Int, rows: Int) throws(ImagingError) -> [UInt8] {
        let frame = animation.frames[index]
        guard case .gif(let data) = frame.data else {
            throw .corrupt(format: animation.format, detail: "frame \(index) is not a GIF frame")
        }
        let blocks = try input.read(at: data.lzw.offset, count: data.lzw.count, format: .gif)
        let width = frame.rect.width
        let height = frame.rect.height
        if data.interlaced {
            let (indices, _) = try GIFLZW.decode(blocks, count: width * height, frame: index)
            return Self.deinterlace(indices, width: width, height: height)
        }
        return try GIFLZW.decode(blocks, count: width * min(rows, height), frame: index).indices
    }

    /// The palette the frame's indices look up (local, else global).
    static func palette(_ data: GIFFrameData, _ details: GIFDetails) -> [UInt8] {
        data.localColours ?? details.globalColours ?? []
    }

    private func decodeGIF(
        _ frame: AnimationFrame, _ data: GIFFrameData, _ details: GIFDetails, index: Int
    ) throws(ImagingError) -> DecodedFrame {
        let blocks = try input.read(at: data.lzw.offset, count: data.lzw.count, format: .gif)
        let count = frame.rect.width * frame.rect.height
        var (indices, _) = try GIFLZW.decode(blocks, count: count, frame: index)
        if data.interlaced {
            indices = Self.deinterlace(indices, width: frame.rect.width, height: frame.rect.height)
        }
        let palette = Self.palette(data, details)
        let entries = palette.count / 3
        var rgba = [UInt8](repeating: 0, count: count * 4)
        for i in 0..<count {
            let value = Int(indices[i])
            if value == data.transparentIndex { continue }
            if value < entries {
                rgba[4 * i] = palette[3 * value]
                rgba[4 * i + 1] = palette[3 * value + 1]
                rgba[4 * i + 2] = palette[3 * value + 2]
            }
            // An index past the table shows black, as browsers draw it.
            rgba[4 * i + 3] = 255
        }
        return DecodedFrame(
            rgba: AnimationCanvas(
                width: frame.rect.width, height: frame.rect.height, bytesPerChannel: 1,
                samples: rgba),
            indices: indices)
    }

    /// Rows stored in GIF's four interlace passes, put in order.
    static func deinterlace(_ stored: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: stored.count)
        var row = 0
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            var y = start
            while y < height {
                for x in 0..<width { out[y * width + x] = stored[row * width + x] }
                row += 1
                y += step
            }
        }
        return out
    }

    // MARK: APNG

    /// A still PNG of `size` holding these zlib pieces, decoded by the PNG
    /// path (the IDAT path decodes an fdAT's data the same way).
    private func decodePNG(
        _ pieces: [ByteRange], details: APNGDetails, size: PixelSize<StoredPixels>, what: String
    ) throws(ImagingError) -> RasterImage {
        var file: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(size.width))
        ihdr.appendBigEndian(UInt32(size.height))
        ihdr += [
            UInt8(details.bitDepth), details.colorType.rawValue, 0, 0, details.interlaced ? 1 : 0,
        ]
        appendChunk("IHDR", ihdr, to: &file)
        for chunk in details.colourChunks where chunk.type == "PLTE" || chunk.type == "tRNS" {
            appendChunk(chunk.type, chunk.data, to: &file)
        }
        var data: [UInt8] = []
        for piece in pieces {
            data += try input.read(at: piece.offset, count: piece.count, format: .png)
        }
        appendChunk("IDAT", data, to: &file)
        appendChunk("IEND", [UInt8](), to: &file)
        do {
            var source = try ImageSource(ImageInput(bytes: file, name: what), limits: limits)
            source.inflater = inflater
            return try source.decode().image
        } catch {
            throw .corrupt(format: .png, detail: "\(what): \(Self.detail(error))")
        }
    }

    /// A frame's samples as RGBA at `depth` bits.
    static func rgba(_ image: RasterImage, depth: Int) -> AnimationCanvas {
        let count = image.width * image.height
        let wide = depth == 16
        var out = [UInt8](repeating: 0, count: count * (wide ? 8 : 4))
        let palette = image.palette ?? []
        let trns = image.chunks.first(where: { $0.type == "tRNS" })?.data ?? []
        let maxValue = (1 << image.bitDepth) - 1
        // A sample scaled to the canvas depth.
        func scaled(_ v: Int) -> Int {
            let top = wide ? 65535 : 255
            if image.bitDepth == (wide ? 16 : 8) { return v }
            return (v * top + maxValue / 2) / maxValue
        }
        // A gray or RGB image's tRNS colour key, -1 for none.
        func key(_ channel: Int) -> Int {
            let at = 2 * channel
            return at + 1 < trns.count ? Int(trns[at]) << 8 | Int(trns[at + 1]) : -1
        }
        let keyColour =
            image.colorType == .gray
            ? (key(0), key(0), key(0))
            : image.colorType == .rgb ? (key(0), key(1), key(2)) : (-1, -1, -1)
        if !wide && image.bitDepth == 8 && image.samples.count >= image.rowBytes * image.height {
            // The common 8-bit kinds a sample at a time, without the general
            // path's per-sample lookups: RGBA is the canvas's own layout.
            if let fast = rgba8(image, keyColour: keyColour, palette: palette, trns: trns) {
                return AnimationCanvas(
                    width: image.width, height: image.height, bytesPerChannel: 1, samples: fast)
            }
        }
        for i in 0..<count {
            let x = i % image.width
            let y = i / image.width
            var r = 0
            var g = 0
            var b = 0
            var a = wide ? 65535 : 255
            switch image.colorType {
            case .palette:
                let index = image.sample(x: x, y: y, channel: 0)
                if 3 * index + 2 < palette.count {
                    r = Int(palette[3 * index])
                    g = Int(palette[3 * index + 1])
                    b = Int(palette[3 * index + 2])
                }
                let alpha = index < trns.count ? Int(trns[index]) : 255
                if wide {
                    (r, g, b, a) = (r * 257, g * 257, b * 257, alpha * 257)
                } else {
                    a = alpha
                }
            case .gray, .grayAlpha:
                let v = image.sample(x: x, y: y, channel: 0)
                r = scaled(v)
                (g, b) = (r, r)
                if image.colorType == .grayAlpha {
                    a = scaled(image.sample(x: x, y: y, channel: 1))
                } else if v == keyColour.0 {
                    a = 0
                }
            case .rgb, .rgba:
                let (vr, vg, vb) = (
                    image.sample(x: x, y: y, channel: 0), image.sample(x: x, y: y, channel: 1),
                    image.sample(x: x, y: y, channel: 2)
                )
                (r, g, b) = (scaled(vr), scaled(vg), scaled(vb))
                if image.colorType == .rgba {
                    a = scaled(image.sample(x: x, y: y, channel: 3))
                } else if (vr, vg, vb) == keyColour {
                    a = 0
                }
            }
            let at = i * (wide ? 8 : 4)
            if wide {
                (out[at], out[at + 1], out[at + 2], out[at + 3]) = (
                    UInt8(r >> 8), UInt8(r & 0xFF), UInt8(g >> 8), UInt8(g & 0xFF)
                )
                (out[at + 4], out[at + 5], out[at + 6], out[at + 7]) = (
                    UInt8(b >> 8), UInt8(b & 0xFF), UInt8(a >> 8), UInt8(a & 0xFF)
                )
            } else {
                (out[at], out[at + 1], out[at + 2], out[at + 3]) = (
                    UInt8(r), UInt8(g), UInt8(b), UInt8(a)
                )
            }
        }
        return AnimationCanvas(
            width: image.width, height: image.height, bytesPerChannel: wide ? 2 : 1, samples: out)
    }

    /// An 8-bit RGBA, RGB or palette image as 8-bit RGBA (the same values
    /// ``rgba(_:depth:)``'s general path gives); `nil` for other kinds.
    private static func rgba8(
        _ image: RasterImage, keyColour: (Int, Int, Int), palette: [UInt8], trns: [UInt8]
    ) -> [UInt8]? {
        let count = image.width * image.height
        switch image.colorType {
        case .rgba:
            return image.samples.count == count * 4
                ? image.samples : Array(image.samples.prefix(count * 4))
        case .rgb:
            var out = [UInt8](repeating: 255, count: count * 4)
            let keyed = keyColour.0 >= 0
            image.samples.withUnsafeBufferPointer { from in
                out.withUnsafeMutableBufferPointer { to in
                    for i in 0..<count {
                        let (r, g, b) = (from[3 * i], from[3 * i + 1], from[3 * i + 2])
                        to[4 * i] = r
                        to[4 * i + 1] = g
                        to[4 * i + 2] = b
                        if keyed && (Int(r), Int(g), Int(b)) == keyColour { to[4 * i + 3] = 0 }
                    }
                }
            }
            return out
        case .palette:
            var table = [UInt8](repeating: 0, count: 256 * 4)
            for index in 0..<256 {
                if 3 * index + 2 < palette.count {
                    table[4 * index] = palette[3 * index]
                    table[4 * index + 1] = palette[3 * index + 1]
                    table[4 * index + 2] = palette[3 * index + 2]
                }
                table[4 * index + 3] = index < trns.count ? trns[index] : 255
            }
            var out = [UInt8](repeating: 0, count: count * 4)
            image.samples.withUnsafeBufferPointer { from in
                out.withUnsafeMutableBufferPointer { to in
                    table.withUnsafeBufferPointer { table in
                        for i in 0..<count {
                            let at = 4 * Int(from[i])
                            to[4 * i] = table[at]
                            to[4 * i + 1] = table[at + 1]
                            to[4 * i + 2] = table[at + 2]
                            to[4 * i + 3] = table[at + 3]
                        }
                    }
                }
            }
            return out
        default:
            return nil
        }
    }

    // MARK: WebP

    private func decodeWebP(_ data: WebPFrameData, size: PixelSize<StoredPixels>, index: Int)
        throws(ImagingError) -> AnimationCanvas
    {
        let alpha = try data.alpha.map { range throws(ImagingError) in
            try input.read(at: range.offset, count: range.count, format: .webp)
        }
        let bitstream = try input.read(
            at: data.bitstream.offset, count: data.bitstream.count, format: .webp)
        let file = WebPContainer.stillFile(
            bitstream: bitstream, type: data.bitstreamType, alpha: alpha, width: size.width,
            height: size.height, extended: true)
        let image: RasterImage
        do {
            let source = try ImageSource(
                ImageInput(bytes: file, name: "frame \(index)"), limits: limits)
            image = try source.decode().image
        } catch {
            throw .corrupt(format: .webp, detail: "frame \(index): \(Self.detail(error))")
        }
        if image.colorType == .rgba {
            return AnimationCanvas(
                width: image.width, height: image.height, bytesPerChannel: 1, samples: image.samples
            )
        }
        var out = [UInt8](repeating: 255, count: image.width * image.height * 4)
        for i in 0..<image.width * image.height {
            for k in 0..<3 { out[4 * i + k] = image.samples[3 * i + k] }
        }
        return AnimationCanvas(
            width: image.width, height: image.height, bytesPerChannel: 1, samples: out)
    }

    /// An error's words without its format's prefix.
    static func detail(_ error: any Error) -> String {
        if let imaging = error as? ImagingError, case .corrupt(_, let detail) = imaging {
            return detail
        }
        return "\(error)"
    }
}
