import CropGeometry

/// A canvas of RGBA pixels, 8 or 16 bits a channel (16-bit samples
/// big-endian, as ``RasterImage`` holds them): what a frame is composited
/// onto, and what a displayed frame is.
struct AnimationCanvas: Equatable {
    var width: Int
    var height: Int
    /// 1 or 2.
    var bytesPerChannel: Int
    var samples: [UInt8]

    /// A transparent canvas.
    init(width: Int, height: Int, bytesPerChannel: Int) {
        self.width = width
        self.height = height
        self.bytesPerChannel = bytesPerChannel
        samples = [UInt8](repeating: 0, count: width * height * 4 * bytesPerChannel)
    }

    init(width: Int, height: Int, bytesPerChannel: Int, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.bytesPerChannel = bytesPerChannel
        self.samples = samples
    }

    var bytesPerPixel: Int { 4 * bytesPerChannel }
    var rowBytes: Int { width * bytesPerPixel }
    var size: PixelSize<StoredPixels> { PixelSize(width: width, height: height) }

    /// The pixels of `rect` (inside the canvas).
    func cut(_ rect: PixelRect<StoredPixels>) -> AnimationCanvas {
        var out = [UInt8]()
        out.reserveCapacity(rect.width * rect.height * bytesPerPixel)
        samples.withUnsafeBufferPointer { all in
            for y in rect.y..<rect.maxY {
                let start = y * rowBytes + rect.x * bytesPerPixel
                out.append(contentsOf: all[start..<start + rect.width * bytesPerPixel])
            }
        }
        return AnimationCanvas(
            width: rect.width, height: rect.height, bytesPerChannel: bytesPerChannel, samples: out)
    }

    /// Puts `pixels` at (`x`, `y`) as they are.
    mutating func paste(_ pixels: AnimationCanvas, x: Int, y: Int) {
        let count = pixels.rowBytes
        let (rowBytes, bytesPerPixel) = (self.rowBytes, self.bytesPerPixel)
        samples.withUnsafeMutableBufferPointer { out in
            pixels.samples.withUnsafeBufferPointer { source in
                guard let to = out.baseAddress, let from = source.baseAddress else { return }
                for row in 0..<pixels.height {
                    (to + (y + row) * rowBytes + x * bytesPerPixel).update(
                        from: from + row * count, count: count)
                }
            }
        }
    }

    /// Clears `rect` to transparent black.
    mutating func clear(_ rect: PixelRect<StoredPixels>) {
        let count = rect.width * bytesPerPixel
        let (rowBytes, bytesPerPixel) = (self.rowBytes, self.bytesPerPixel)
        samples.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            for y in rect.y..<rect.maxY {
                (base + y * rowBytes + rect.x * bytesPerPixel).update(repeating: 0, count: count)
            }
        }
    }

    /// The alpha of pixel `i` (0–255 or 0–65535).
    func alpha(_ i: Int) -> Int {
        let at = i * bytesPerPixel + 3 * bytesPerChannel
        return bytesPerChannel == 1
            ? Int(samples[at]) : Int(samples[at]) << 8 | Int(samples[at + 1])
    }

    /// Whether pixels `i` of `self` and `j` of `other` show the same: equal
    /// samples, or both fully transparent (their colour is not seen).
    func showsSame(_ i: Int, as other: AnimationCanvas, _ j: Int) -> Bool {
        let a = alpha(i)
        let b = other.alpha(j)
        if a == 0 && b == 0 { return true }
        let p = i * bytesPerPixel
        let q = j * bytesPerPixel
        for k in 0..<bytesPerPixel where samples[p + k] != other.samples[q + k] { return false }
        return true
    }

    /// As an RGBA ``RasterImage``.
    var raster: RasterImage {
        RasterImage(
            width: width, height: height, colorType: .rgba, bitDepth: 8 * bytesPerChannel,
            samples: samples)
    }
}

/// How "over" is computed for a container's frames: each container's
/// players agree on their own arithmetic, which a crop must reproduce.
enum BlendArithmetic {
    /// libwebp's `WebPAnimDecoder` (non-premultiplied, its integer
    /// approximation), which browsers and Pillow use for WebP.
    case libwebp
    /// The PNG specification's alpha compositing, exactly, rounded to
    /// nearest: APNG.
    case exact
    /// GIF: a pixel is drawn or left (alpha 0 or full).
    case binary
}

extension AnimationCanvas {
    /// Draws `frame` at its rect by `blend`.
    ///
    /// - Parameter untouched: For libwebp's arithmetic, the rect of the
    ///   previous frame when it was disposed to background: libwebp leaves
    ///   pixels there as decoded instead of blending them with the cleared
    ///   pixel (its `FindBlendRangeAtRow`).
    mutating func draw(
        _ frame: AnimationCanvas, at rect: PixelRect<StoredPixels>, blend: FrameBlend,
        arithmetic: BlendArithmetic, untouched: PixelRect<StoredPixels>? = nil
    ) {
        if blend == .source {
            paste(frame, x: rect.x, y: rect.y)
            return
        }
        let bpp = bytesPerPixel
        let stride = rowBytes
        let bytesPerChannel = self.bytesPerChannel
        samples.withUnsafeMutableBufferPointer { out in
            frame.samples.withUnsafeBufferPointer { src in
                for row in 0..<rect.height {
                    let y = rect.y + row
                    // The frame's columns on this row where libwebp takes
                    // the frame's pixel as it is, transparent ones too.
                    var copied = 0..<0
                    if arithmetic == .libwebp, let untouched, y >= untouched.y, y < untouched.maxY {
                        let from = Swift.max(0, untouched.x - rect.x)
                        copied =
                            from..<Swift.max(from, Swift.min(rect.width, untouched.maxX - rect.x))
                    }
                    if bytesPerChannel == 1, copied.isEmpty,
                        Self.selectOpaque(
                            row: row, width: rect.width, source: src, into: out,
                            at: y * stride + rect.x * bpp)
                    {
                        continue
                    }
                    for column in 0..<rect.width {
                        let x = rect.x + column
                        let s = (row * rect.width + column) * bpp
                        let d = y * stride + x * bpp
                        if bytesPerChannel == 1 {
                            let sa = Int(src[s + 3])
                            if sa == 255 {
                                for k in 0..<4 { out[d + k] = src[s + k] }
                                continue
                            }
                            switch arithmetic {
                            case .binary:
                                if sa != 0 { for k in 0..<4 { out[d + k] = src[s + k] } }
                            case .libwebp:
                                if let untouched, untouched.contains(x: x, y: y) {
                                    for k in 0..<4 { out[d + k] = src[s + k] }
                                    continue
                                }
                                guard sa != 0 else { continue }
                                let da = Int(out[d + 3])
                                let dstFactor = (da * (256 - sa)) >> 8
                                let blendA = sa + dstFactor
                                let scale = (1 << 24) / blendA
                                for k in 0..<3 {
                                    let v = Int(src[s + k]) * sa + Int(out[d + k]) * dstFactor
                                    out[d + k] = UInt8(truncatingIfNeeded: (v * scale) >> 24)
                                }
                                out[d + 3] = UInt8(blendA)
                            case .exact:
                                guard sa != 0 else { continue }
                                let da = Int(out[d + 3])
                                let m = 255
                                let aNum = sa * m + da * (m - sa)
                                for k in 0..<3 {
                                    let num =
                                        Int(src[s + k]) * sa * m + Int(out[d + k]) * da * (m - sa)
                                    out[d + k] = UInt8((2 * num + aNum) / (2 * aNum))
                                }
                                out[d + 3] = UInt8((2 * aNum + m) / (2 * m))
                            }
                        } else {
                            func get(_ p: UnsafeMutableBufferPointer<UInt8>, _ i: Int) -> Int {
                                Int(p[i]) << 8 | Int(p[i + 1])
                            }
                            let sa = Int(src[s + 6]) << 8 | Int(src[s + 7])
                            if sa == 0 { continue }
                            if sa == 65535 || arithmetic == .binary {
                                for k in 0..<8 { out[d + k] = src[s + k] }
                                continue
                            }
                            let m = 65535
                            let da = get(out, d + 6)
                            let aNum = sa * m + da * (m - sa)
                            for k in 0..<3 {
                                let sc = Int(src[s + 2 * k]) << 8 | Int(src[s + 2 * k + 1])
                                let num = sc * sa * m + get(out, d + 2 * k) * da * (m - sa)
                                let v = (2 * num + aNum) / (2 * aNum)
                                out[d + 2 * k] = UInt8(v >> 8)
                                out[d + 2 * k + 1] = UInt8(v & 0xFF)
                            }
                            let a = (2 * aNum + m) / (2 * m)
                            out[d + 6] = UInt8(a >> 8)
                            out[d + 7] = UInt8(a & 0xFF)
                        }
                    }
                }
            }
        }
    }
}

extension AnimationCanvas {
    /// Draws row `row` of an 8-bit frame `width` pixels wide at `offset` of
    /// `out` when every alpha on it is 0 or 255 (a frame a lossless
    /// animation encoder made by leaving unchanged pixels transparent): an
    /// opaque pixel replaces the canvas's, a transparent one leaves it, in
    /// every arithmetic, with no branch a pixel. Whether it did; a row with
    /// another alpha is left to the pixel by pixel path.
    static func selectOpaque(
        row: Int, width: Int, source: UnsafeBufferPointer<UInt8>,
        into out: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Bool {
        guard let from = source.baseAddress, let to = out.baseAddress, width > 0 else {
            return false
        }
        let sourceRow = UnsafeRawPointer(from + row * width * 4)
        let canvasRow = UnsafeMutableRawPointer(to + offset)
        // Alpha is each pixel's most significant byte, read little-endian.
        var other: UInt32 = 0
        for column in 0..<width {
            let alpha =
                UInt32(
                    littleEndian: sourceRow.loadUnaligned(
                        fromByteOffset: 4 * column, as: UInt32.self)
                ) >> 24
            other |= (alpha &+ 1) & 0xFE
        }
        guard other == 0 else { return false }
        for column in 0..<width {
            let pixel = sourceRow.loadUnaligned(fromByteOffset: 4 * column, as: UInt32.self)
            let under = canvasRow.loadUnaligned(fromByteOffset: 4 * column, as: UInt32.self)
            let mask = UInt32(bitPattern: Int32(bitPattern: UInt32(littleEndian: pixel)) >> 31)
            canvasRow.storeBytes(
                of: (pixel & mask) | (under & ~mask), toByteOffset: 4 * column, as: UInt32.self)
        }
        return true
    }
}

extension PixelRect where Space == StoredPixels {
    /// Whether the pixel (`x`, `y`) lies in the rect.
    func contains(x: Int, y: Int) -> Bool {
        x >= self.x && x < maxX && y >= self.y && y < maxY
    }

    /// The rect both cover, or `nil` when they do not meet.
    func meeting(_ other: PixelRect<StoredPixels>) -> PixelRect<StoredPixels>? {
        let x0 = Swift.max(x, other.x)
        let y0 = Swift.max(y, other.y)
        let x1 = Swift.min(maxX, other.maxX)
        let y1 = Swift.min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
