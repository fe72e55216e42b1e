import CropGeometry
import Foundation

/// Renders a straightened or resized crop from the decoded pixels under it.
///
/// The input is the region the decoder read (the crop's read rect, in the
/// image grid, upright); the output is `W×H` pixels, each sampled at the
/// position the contract gives. Rows are rendered in parallel.
public struct Resampler: Sendable {
    /// The filter.
    public var filter: ResamplingFilter
    /// The colour where a sample position lies outside the image.
    public var fill: FillColor

    /// A resampler with this filter and fill.
    public init(filter: ResamplingFilter, fill: FillColor = .transparent) {
        self.filter = filter
        self.fill = fill
    }

    /// Whether the output of `crop` from an image of this colour type
    /// has an alpha channel: the image has one, or some output pixel may be
    /// fill and the fill is transparent.
    public func outputHasAlpha(_ crop: StraightenedCrop, imageHasAlpha: Bool) -> Bool {
        imageHasAlpha || (fill == .transparent && !crop.frame.isInside(crop.rect))
    }

    /// The crop rendered from `region`, the pixels of the image's read rect
    /// `origin` (upright, in the image grid).
    ///
    /// Unturned crops are resampled in two separable passes (down, then
    /// across, a row of output at a time); turned crops weigh the filter's
    /// taps around each sample position. Colour is weighed premultiplied by
    /// alpha. Reads are clamped to the region, which repeats the image's
    /// edge where the region meets it.
    ///
    /// - Parameters:
    ///   - crop: The output rect, size and sample positions.
    ///   - region: Decoded pixels, upright: gray, gray+alpha, RGB or RGBA at
    ///     8 or 16 bits (see ``RasterImage/directColor()``).
    ///   - origin: Where `region` lies in the image grid (or, with a
    ///     `scale`, in the image grid shrunk by it).
    ///   - scale: How many image pixels across and down each region pixel
    ///     covers: 1, or a JPEG's shrink-on-load factor (2, 4 or 8). Image
    ///     position `q` is then region position `(q + offset) / scale`.
    ///   - offset: Where the image's top-left corner lies in the shrunk
    ///     grid, in image pixels (a shrunk grid rounds the stored size up,
    ///     and a mirrored axis puts that padding before the image).
    /// - Returns: `W×H` pixels of the region's colour type (with alpha
    ///   added per ``outputHasAlpha(_:imageHasAlpha:)``) and bit depth.
    public func render(
        _ crop: StraightenedCrop, from region: RasterImage, at origin: PixelRect<ImagePixels>,
        scale: Int = 1, offset: (x: Double, y: Double) = (0, 0)
    ) -> RasterImage {
        let colorType = outputColorType(crop, region: region)
        let rowBytes = crop.outputSize.width * colorType.channels * (region.bitDepth == 16 ? 2 : 1)
        var out = [UInt8](repeating: 0, count: rowBytes * crop.outputSize.height)
        out.withUnsafeMutableBufferPointer { output in
            render(
                crop, from: region, at: origin, scale: scale, offset: offset,
                rows: 0..<crop.outputSize.height, ringRows: 0, into: output)
        }
        return RasterImage(
            width: crop.outputSize.width, height: crop.outputSize.height, colorType: colorType,
            bitDepth: region.bitDepth == 16 ? 16 : 8, samples: out)
    }

    /// The colour type of `crop` rendered from `region`: the region's, with
    /// alpha added per ``outputHasAlpha(_:imageHasAlpha:)``.
    public func outputColorType(_ crop: StraightenedCrop, region: RasterImage) -> ColorType {
        outputColorType(crop, regionColorType: region.colorType)
    }

    /// ``outputColorType(_:region:)`` for a region of direct colour type
    /// `regionColorType`.
    func outputColorType(_ crop: StraightenedCrop, regionColorType: ColorType)
        -> ColorType
    {
        let inputHasAlpha = regionColorType == .grayAlpha || regionColorType == .rgba
        let hasAlpha = outputHasAlpha(crop, imageHasAlpha: inputHasAlpha)
        let gray = regionColorType == .gray || regionColorType == .grayAlpha
        return gray ? (hasAlpha ? .grayAlpha : .gray) : (hasAlpha ? .rgba : .rgb)
    }

    /// Output rows `rows` of ``render(_:from:at:scale:offset:)`` into
    /// `output`: row `r` at `r` rows in, or at `r % ringRows` rows in when
    /// `ringRows` is not 0 (a ring an encoder drains as it goes).
    func render(
        _ crop: StraightenedCrop, from region: RasterImage, at origin: PixelRect<ImagePixels>,
        scale: Int, offset: (x: Double, y: Double), rows: Range<Int>, ringRows: Int,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) {
        region.samples.withUnsafeBufferPointer { samples in
            render(
                crop,
                from: RegionPixels(
                    samples: samples, width: region.width, height: region.height,
                    colorType: region.colorType, bitDepth: region.bitDepth),
                at: origin, scale: scale, offset: offset, rows: rows, ringRows: ringRows,
                into: output)
        }
    }

    /// How many rows of the region, from its top, output rows `rows` read:
    /// the lowest sample position among them, plus the filter's reach (for
    /// a renderer that starts while the decoder is still filling the region).
    package func regionRowsNeeded(
        _ crop: StraightenedCrop, rows: Range<Int>, at origin: PixelRect<ImagePixels>,
        scale: Int, offset: (x: Double, y: Double)
    ) -> Int {
        let transform = crop.sampleTransform
        let width = Double(crop.outputSize.width)
        var lowest = -Double.infinity
        for x in [0.5, width - 0.5] {
            for y in [Double(rows.lowerBound) + 0.5, Double(rows.upperBound) - 0.5] {
                lowest = max(lowest, transform.c * x + transform.d * y + transform.ty)
            }
        }
        let v = (lowest + offset.y) / Double(scale) - Double(origin.y) - 0.5
        let reach = max(crop.reduction.x, crop.reduction.y) / Double(scale)
        let radius: Double =
            switch filter {
            case .nearest, .bilinear: 1
            case .lanczos3: 3 * max(1, reach)
            }
        guard v.isFinite else { return origin.height }
        return min(origin.height, max(0, Int(min(v + radius + 2, 1e9).rounded(.up))))
    }

    /// Output rows `rows` rendered from pixels lent as a buffer (the region
    /// a decoder is filling); see ``render(_:from:at:scale:offset:)``.
    func render(
        _ crop: StraightenedCrop, from region: RegionPixels, at origin: PixelRect<ImagePixels>,
        scale: Int, offset: (x: Double, y: Double), rows: Range<Int>, ringRows: Int,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) {
        precondition(region.width == origin.width && region.height == origin.height)
        let placement = RegionPlacement(
            scale: Double(scale), x: offset.x / Double(scale) - Double(origin.x) - 0.5,
            y: offset.y / Double(scale) - Double(origin.y) - 0.5)
        precondition(region.bitDepth >= 8 && region.colorType != .palette)
        let inputHasAlpha = region.colorType == .grayAlpha || region.colorType == .rgba
        let hasAlpha = outputHasAlpha(crop, imageHasAlpha: inputHasAlpha)
        let colorChannels =
            inputHasAlpha ? region.colorType.channels - 1 : region.colorType.channels
        let layout = PixelLayout(
            colorChannels: colorChannels, inputHasAlpha: inputHasAlpha, outputHasAlpha: hasAlpha,
            wide: region.bitDepth == 16, width: crop.outputSize.width, ringRows: ringRows)
        var fillColor = [Float](repeating: 0, count: 4)
        if case .rgb(let r, let g, let b) = fill {
            let scale: Float = layout.wide ? 257 : 1
            let rgb = [Float(r) * scale, Float(g) * scale, Float(b) * scale]
            if colorChannels == 1 {
                fillColor[0] = (rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114).rounded()
            } else {
                fillColor[0...2] = rgb[0...2]
            }
            fillColor[3] = layout.maximum
        }
        // Lanczos-3 widens by what is left of the reduction after any
        // shrink-on-load.
        let (across, down) = (crop.reduction.x / Double(scale), crop.reduction.y / Double(scale))
        let source = RegionReader(
            base: region.samples, wide: layout.wide, channels: region.colorType.channels,
            rowBytes: region.width * region.colorType.channels * (layout.wide ? 2 : 1),
            width: region.width, height: region.height)
        let target = UnsafeSendable(output)
        if crop.frame.angle == 0 {
            // Unturned, each axis widens by its own reduction (as Pillow's
            // and libvips' resize do).
            renderSeparable(
                crop, source: source, placement: placement,
                kernels: (
                    Kernel(filter: filter, widening: across),
                    Kernel(filter: filter, widening: down)
                ), layout: layout, rows: rows, into: target)
        } else {
            // Turned, the axes of the output are not the image's: both widen
            // by the larger reduction, so the kernel stays round under the
            // turn.
            renderTurned(
                crop, source: source, placement: placement,
                kernel: Kernel(filter: filter, widening: max(across, down)),
                layout: layout, fill: fillColor, rows: rows, into: target)
        }
    }

    /// An unturned crop: each output column and row has fixed taps; the
    /// image is weighed down the taps of the row into a line of the region's
    /// width, then across.
    private func renderSeparable(
        _ crop: StraightenedCrop, source: RegionReader, placement: RegionPlacement,
        kernels: (across: Kernel, down: Kernel), layout: PixelLayout, rows band: Range<Int>,
        into target: UnsafeSendable
    ) {
        let transform = crop.sampleTransform
        let columns = Taps(
            count: crop.outputSize.width, extent: source.width, kernel: kernels.across,
            position: {
                (transform.a * (Double($0) + 0.5) + transform.tx) / placement.scale + placement.x
            })
        // The taps of this band's rows only (a streamed render comes a band
        // at a time); `rows.span(row - band.lowerBound)`.
        let rows = Taps(
            count: band.count, extent: source.height, kernel: kernels.down,
            position: {
                (transform.d * (Double(band.lowerBound + $0) + 0.5) + transform.ty)
                    / placement.scale + placement.y
            })
        let channels = 4
        // Only the columns some output column weighs are weighed down (a
        // variant's region may be wider: it is the union of several).
        let firstColumn = columns.starts.min() ?? 0
        let endColumn = zip(columns.starts, columns.counts).map { $0 + $1 }.max() ?? source.width
        if !layout.inputHasAlpha, !source.wide {
            // The common photo, 8-bit and opaque: each tap row is weighed
            // down in one contiguous run of samples (which vectorizes), then
            // across; the weights sum to 1, so no division.
            let c = layout.colorChannels
            let (first, end) = (firstColumn * c, endColumn * c)
            let maximum = layout.maximum
            rows.weights.withUnsafeBufferPointer { rowBuffer in
                columns.weights.withUnsafeBufferPointer { columnBuffer in
                    let rowWeights = SharedWeights(buffer: rowBuffer)
                    let columnWeights = SharedWeights(buffer: columnBuffer)
                    DispatchQueue.concurrentPerform(iterations: band.count) { index in
                        let row = band.lowerBound + index
                        let slot = layout.slot(row)
                        let line = UnsafeMutableBufferPointer<Float>.allocate(
                            capacity: source.width * c)
                        defer { line.deallocate() }
                        line.initialize(repeating: 0)
                        let (start, count, offset) = rows.span(row - band.lowerBound)
                        for tap in 0..<count {
                            let weight = rowWeights.buffer[offset + tap]
                            let samples = UnsafeBufferPointer(
                                rebasing: source.base[((start + tap) * source.rowBytes)...])
                            for i in first..<end { line[i] += weight * Float(samples[i]) }
                        }
                        for column in 0..<crop.outputSize.width {
                            let (start, count, offset) = columns.span(column)
                            var pixel: (Float, Float, Float) = (0, 0, 0)
                            var base = start * c
                            for tap in 0..<count {
                                let weight = columnWeights.buffer[offset + tap]
                                pixel.0 += weight * line[base]
                                if c == 3 {
                                    pixel.1 += weight * line[base + 1]
                                    pixel.2 += weight * line[base + 2]
                                }
                                base += c
                            }
                            layout.store(
                                straight: (pixel.0, pixel.1, pixel.2, maximum), column: column,
                                row: slot, into: target)
                        }
                    }
                }
            }
            return
        }
        DispatchQueue.concurrentPerform(iterations: band.count) { index in
            let row = band.lowerBound + index
            let slot = layout.slot(row)
            var line = [Float](repeating: 0, count: source.width * channels)
            line.withUnsafeMutableBufferPointer { line in
                let (start, count, offset) = rows.span(row - band.lowerBound)
                for tap in 0..<count {
                    let weight = rows.weights[offset + tap]
                    let y = start + tap
                    for x in firstColumn..<endColumn {
                        let alpha =
                            layout.inputHasAlpha ? source.value(x, y, layout.colorChannels) : 1
                        let aw = weight * alpha
                        for channel in 0..<layout.colorChannels {
                            line[x * channels + channel] += aw * source.value(x, y, channel)
                        }
                        line[x * channels + 3] += aw
                    }
                }
                columns.weights.withUnsafeBufferPointer { weights in
                    for column in 0..<crop.outputSize.width {
                        let (start, count, offset) = columns.span(column)
                        var pixel: (Float, Float, Float, Float) = (0, 0, 0, 0)
                        for tap in 0..<count {
                            let weight = weights[offset + tap]
                            let base = (start + tap) * channels
                            pixel.0 += weight * line[base]
                            pixel.1 += weight * line[base + 1]
                            pixel.2 += weight * line[base + 2]
                            pixel.3 += weight * line[base + 3]
                        }
                        layout.store(
                            premultiplied: pixel, total: 1, column: column, row: slot,
                            into: target)
                    }
                }
            }
        }
    }

    /// A turned crop: each output pixel weighs the taps around its own
    /// sample position; where that lies outside the image, the fill.
    private func renderTurned(
        _ crop: StraightenedCrop, source: RegionReader, placement: RegionPlacement,
        kernel: Kernel, layout: PixelLayout, fill: [Float], rows band: Range<Int>,
        into target: UnsafeSendable
    ) {
        let transform = crop.sampleTransform
        let image = crop.frame.imageSize
        let (imageWidth, imageHeight) = (Double(image.width), Double(image.height))
        DispatchQueue.concurrentPerform(iterations: band.count) { index in
            let row = band.lowerBound + index
            let slot = layout.slot(row)
            let maximumTaps = kernel.maximumTaps
            // Scratch for one pixel's taps, without bounds checks: every
            // index is below the kernel's `maximumTaps`.
            let xWeights = UnsafeMutableBufferPointer<Float>.allocate(capacity: maximumTaps)
            let yWeights = UnsafeMutableBufferPointer<Float>.allocate(capacity: maximumTaps)
            let xOffsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: maximumTaps)
            defer {
                xWeights.deallocate()
                yWeights.deallocate()
                xOffsets.deallocate()
            }
            let fillPixel = (fill[0], fill[1], fill[2], fill[3])
            let y = Double(row) + 0.5
            let (lastX, lastY) = (source.width - 1, source.height - 1)
            for column in 0..<crop.outputSize.width {
                let x = Double(column) + 0.5
                let qx = transform.a * x + transform.b * y + transform.tx
                let qy = transform.c * x + transform.d * y + transform.ty
                guard qx >= 0, qy >= 0, qx <= imageWidth, qy <= imageHeight else {
                    layout.store(straight: fillPixel, column: column, row: slot, into: target)
                    continue
                }
                let u = qx / placement.scale + placement.x
                let v = qy / placement.scale + placement.y
                var pixel: (Float, Float, Float, Float) = (0, 0, 0, 0)
                var total: Float = 0
                if kernel.filter == .bilinear, !layout.inputHasAlpha, !source.wide,
                    layout.colorChannels == 3
                {
                    // The common photo, bilinear: four taps, inline, no
                    // libm call (the floor by truncation, corrected below 0).
                    let tx = Int(u)
                    let ty = Int(v)
                    let ix = Double(tx) > u ? tx - 1 : tx
                    let iy = Double(ty) > v ? ty - 1 : ty
                    let (ax, ay) = (Float(u - Double(ix)), Float(v - Double(iy)))
                    let x0 = 3 * min(max(ix, 0), lastX)
                    let x1 = 3 * min(max(ix + 1, 0), lastX)
                    let r0 = min(max(iy, 0), lastY) * source.rowBytes
                    let r1 = min(max(iy + 1, 0), lastY) * source.rowBytes
                    let w00 = (1 - ax) * (1 - ay)
                    let w10 = ax * (1 - ay)
                    let w01 = (1 - ax) * ay
                    let w11 = ax * ay
                    let b = source.base
                    let (i00, i10, i01, i11) = (r0 + x0, r0 + x1, r1 + x0, r1 + x1)
                    let red =
                        w00 * Float(b[i00]) + w10 * Float(b[i10]) + w01 * Float(b[i01]) + w11
                        * Float(b[i11])
                    let green =
                        w00 * Float(b[i00 + 1]) + w10 * Float(b[i10 + 1]) + w01
                        * Float(b[i01 + 1]) + w11 * Float(b[i11 + 1])
                    let blue =
                        w00 * Float(b[i00 + 2]) + w10 * Float(b[i10 + 2]) + w01
                        * Float(b[i01 + 2]) + w11 * Float(b[i11 + 2])
                    layout.store(
                        straight: (red, green, blue, layout.maximum), column: column, row: slot,
                        into: target)
                    continue
                }
                let (x0, xCount) = kernel.weights(at: u, extent: source.width, into: xWeights)
                let (y0, yCount) = kernel.weights(at: v, extent: source.height, into: yWeights)
                if !layout.inputHasAlpha, !source.wide, layout.colorChannels == 3 {
                    // The common photo: each tap row weighed across, then
                    // the rows down; indices clamped once.
                    for i in 0..<xCount { xOffsets[i] = 3 * min(max(x0 + i, 0), lastX) }
                    let b = source.base
                    for j in 0..<yCount {
                        let wy = yWeights[j]
                        if wy == 0 { continue }
                        let rowBase = min(max(y0 + j, 0), lastY) * source.rowBytes
                        var across: (Float, Float, Float) = (0, 0, 0)
                        for i in 0..<xCount {
                            let wx = xWeights[i]
                            let index = rowBase + xOffsets[i]
                            across.0 += wx * Float(b[index])
                            across.1 += wx * Float(b[index + 1])
                            across.2 += wx * Float(b[index + 2])
                        }
                        pixel.0 += wy * across.0
                        pixel.1 += wy * across.1
                        pixel.2 += wy * across.2
                    }
                    pixel.3 = 1
                    layout.store(
                        premultiplied: pixel, total: 1, column: column, row: slot, into: target)
                    continue
                }
                for j in 0..<yCount {
                    let wy = yWeights[j]
                    if wy == 0 { continue }
                    let sy = min(max(y0 + j, 0), lastY)
                    for i in 0..<xCount {
                        let weight = xWeights[i] * wy
                        if weight == 0 { continue }
                        let sx = min(max(x0 + i, 0), lastX)
                        let alpha =
                            layout.inputHasAlpha ? source.value(sx, sy, layout.colorChannels) : 1
                        let aw = weight * alpha
                        pixel.0 += aw * source.value(sx, sy, 0)
                        if layout.colorChannels == 3 {
                            pixel.1 += aw * source.value(sx, sy, 1)
                            pixel.2 += aw * source.value(sx, sy, 2)
                        }
                        pixel.3 += aw
                        total += weight
                    }
                }
                layout.store(
                    premultiplied: pixel, total: total, column: column, row: slot, into: target)
            }
        }
    }
}

/// Decoded pixels lent as a buffer: direct colour (gray, gray + alpha, RGB,
/// RGBA) at 8 or 16 bits, rows packed.
struct RegionPixels: @unchecked Sendable {
    let samples: UnsafeBufferPointer<UInt8>
    let width: Int
    let height: Int
    let colorType: ColorType
    let bitDepth: Int
}

/// Where image positions lie in the region: `u = q.x / scale + x`, with
/// the region's pixel centres at whole numbers.
private struct RegionPlacement: Sendable {
    let scale: Double
    let x: Double
    let y: Double
}

/// Weights every row's thread reads and none writes.
private struct SharedWeights: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Float>
}

/// A buffer written by disjoint rows from several threads.
private struct UnsafeSendable: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }
}

/// The channels and sample size of the input and output, and how a
/// weighed pixel is stored.
private struct PixelLayout: Sendable {
    let colorChannels: Int
    let inputHasAlpha: Bool
    let outputHasAlpha: Bool
    let wide: Bool
    let width: Int
    /// Rows in the output ring (row `r` is stored at `r % ringRows`), or 0
    /// for a whole image.
    let ringRows: Int

    let maximum: Float
    let outputChannels: Int
    let pixelBytes: Int
    let outputRowBytes: Int

    init(
        colorChannels: Int, inputHasAlpha: Bool, outputHasAlpha: Bool, wide: Bool, width: Int,
        ringRows: Int
    ) {
        self.colorChannels = colorChannels
        self.inputHasAlpha = inputHasAlpha
        self.outputHasAlpha = outputHasAlpha
        self.wide = wide
        self.width = width
        self.ringRows = ringRows
        maximum = wide ? 65535 : 255
        outputChannels = colorChannels + (outputHasAlpha ? 1 : 0)
        pixelBytes = outputChannels * (wide ? 2 : 1)
        outputRowBytes = width * pixelBytes
    }

    /// Where output row `row` is stored: itself, or its place in the ring.
    @inline(__always)
    func slot(_ row: Int) -> Int { ringRows > 0 ? row % ringRows : row }

    /// Stores a weighed pixel: colour premultiplied (channels 0..<n) and
    /// the weighed alpha at 3 (the weight itself for an opaque input),
    /// with `total` the sum of the weights.
    @inline(__always)
    func store(
        premultiplied pixel: (Float, Float, Float, Float), total: Float, column: Int, row: Int,
        into target: UnsafeSendable
    ) {
        let alpha = pixel.3
        let divisor = alpha != 0 ? alpha : 1
        var straight: (Float, Float, Float, Float) = (
            pixel.0 / divisor, pixel.1 / divisor, pixel.2 / divisor, maximum
        )
        if inputHasAlpha { straight.3 = total != 0 ? alpha / total : 0 }
        write(straight, column: column, row: row, into: target)
    }

    /// Stores `pixel` as given (colour, then alpha at 3).
    @inline(__always)
    func store(
        straight pixel: (Float, Float, Float, Float), column: Int, row: Int,
        into target: UnsafeSendable
    ) {
        write(pixel, column: column, row: row, into: target)
    }

    @inline(__always)
    private func write(
        _ pixel: (Float, Float, Float, Float), column: Int, row: Int, into target: UnsafeSendable
    ) {
        // `row` is the output row's slot (``slot(_:)``), found once a row.
        let base = row * outputRowBytes + column * pixelBytes
        let top = maximum
        @inline(__always) func level(_ value: Float) -> UInt32 {
            UInt32(min(max(value, 0), top) + 0.5)
        }
        let buffer = target.buffer
        if wide {
            @inline(__always) func put(_ value: Float, _ index: Int) {
                let v = level(value)
                buffer[base + 2 * index] = UInt8(truncatingIfNeeded: v >> 8)
                buffer[base + 2 * index + 1] = UInt8(truncatingIfNeeded: v)
            }
            put(pixel.0, 0)
            if colorChannels == 3 {
                put(pixel.1, 1)
                put(pixel.2, 2)
            }
            if outputHasAlpha { put(pixel.3, colorChannels) }
        } else {
            buffer[base] = UInt8(truncatingIfNeeded: level(pixel.0))
            if colorChannels == 3 {
                buffer[base + 1] = UInt8(truncatingIfNeeded: level(pixel.1))
                buffer[base + 2] = UInt8(truncatingIfNeeded: level(pixel.2))
            }
            if outputHasAlpha {
                buffer[base + colorChannels] = UInt8(truncatingIfNeeded: level(pixel.3))
            }
        }
    }
}

/// Reads samples of the decoded region.
private struct RegionReader: @unchecked Sendable {
    let base: UnsafeBufferPointer<UInt8>
    let wide: Bool
    let channels: Int
    let rowBytes: Int
    let width: Int
    let height: Int

    @inline(__always)
    func value(_ x: Int, _ y: Int, _ channel: Int) -> Float {
        if wide {
            let index = y * rowBytes + 2 * (x * channels + channel)
            return Float(UInt16(base[index]) << 8 | UInt16(base[index + 1]))
        }
        return Float(base[y * rowBytes + x * channels + channel])
    }
}

/// A filter's kernel for one crop: its radius and weights.
private struct Kernel: Sendable {
    let filter: ResamplingFilter
    /// The kernel's widening: the reduction along its axis for Lanczos-3
    /// (never below 1), else 1.
    let scale: Double

    init(filter: ResamplingFilter, widening: Double) {
        self.filter = filter
        scale = filter == .lanczos3 ? max(1, widening) : 1
    }

    /// The most taps along one axis.
    var maximumTaps: Int {
        switch filter {
        case .nearest: 1
        case .bilinear: 2
        case .lanczos3: Int((6 * scale).rounded(.up)) + 2
        }
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// Steps of the Lanczos-3 table per unit of distance.
    static let tableSteps = 4096.0
    /// `lanczos3` at every 1/4096 from 0 to 3 (the weights are normalized
    /// afterwards; the table's step moves a weight by under 1e-3 of the
    /// largest one).
    static let lanczosTable: [Double] = (0...Int(3 * tableSteps)).map {
        lanczos3(Double($0) / tableSteps)
    }

    @inline(__always)
    static func tabledLanczos3(_ x: Double, _ table: UnsafeBufferPointer<Double>) -> Double {
        let index = Int(abs(x) * tableSteps + 0.5)
        return index < table.count ? table[index] : 0
    }

    /// The weights of the taps around `u` (pixel centres at whole numbers)
    /// into `weights`, normalized to sum 1: the first tap's index (it may
    /// lie outside `0..<extent`; the caller clamps) and the count.
    @inline(__always)
    func weights(at u: Double, extent: Int, into weights: UnsafeMutableBufferPointer<Float>) -> (
        Int, Int
    ) {
        switch filter {
        case .nearest:
            weights[0] = 1
            return (Int((u + 0.5).rounded(.down)), 1)
        case .bilinear:
            let x0 = u.rounded(.down)
            let f = Float(u - x0)
            weights[0] = 1 - f
            weights[1] = f
            return (Int(x0), 2)
        case .lanczos3:
            let radius = 3 * scale
            let first = Int((u - radius).rounded(.up))
            let last = Int((u + radius).rounded(.down))
            var sum = 0.0
            var count = 0
            Self.lanczosTable.withUnsafeBufferPointer { table in
                let step = 1 / scale
                for x in first...last where count < weights.count {
                    let weight = Self.tabledLanczos3((Double(x) - u) * step, table)
                    weights[count] = Float(weight)
                    sum += weight
                    count += 1
                }
            }
            let inverse = Float(sum != 0 ? 1 / sum : 0)
            for i in 0..<count { weights[i] *= inverse }
            return (first, count)
        }
    }
}

/// The taps of every output column (or row) of an unturned crop, with
/// taps beyond the region folded onto its edge.
private struct Taps: Sendable {
    var starts: [Int] = []
    var counts: [Int] = []
    var offsets: [Int] = []
    var weights: [Float] = []

    init(count: Int, extent: Int, kernel: Kernel, position: (Int) -> Double) {
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: kernel.maximumTaps)
        defer { scratch.deallocate() }
        for index in 0..<count {
            let (first, taps) = kernel.weights(at: position(index), extent: extent, into: scratch)
            // Fold taps outside 0..<extent onto the nearest edge.
            let low = min(max(first, 0), extent - 1)
            let high = min(max(first + taps - 1, 0), extent - 1)
            var folded = [Float](repeating: 0, count: high - low + 1)
            for tap in 0..<taps {
                folded[min(max(first + tap, 0), extent - 1) - low] += scratch[tap]
            }
            starts.append(low)
            counts.append(folded.count)
            offsets.append(weights.count)
            weights += folded
        }
    }

    @inline(__always)
    func span(_ index: Int) -> (start: Int, count: Int, offset: Int) {
        (starts[index], counts[index], offsets[index])
    }
}

extension RasterImage {
    /// These pixels as direct colour a resampler can weigh: gray, gray +
    /// alpha, RGB or RGBA at 8 or 16 bits. A palette is expanded (to RGBA
    /// when its tRNS makes any entry translucent), samples below 8 bits are
    /// scaled to 8, and a tRNS colour key becomes an alpha channel. Images
    /// already direct are returned as they are.
    public func directColor() -> RasterImage {
        let transparency = chunks.first(where: { $0.type == "tRNS" })?.data
        let keeps = (colorType != .palette && bitDepth >= 8 && transparency == nil)
        if keeps { return self }
        let isGray = colorType == .gray || colorType == .grayAlpha
        let hasAlpha =
            colorType == .grayAlpha || colorType == .rgba || transparency != nil
        let colorChannels = isGray ? 1 : 3
        let channels = colorChannels + (hasAlpha ? 1 : 0)
        let wide = bitDepth == 16
        let maxValue = (1 << bitDepth) - 1
        let palette = self.palette ?? []
        func to8(_ value: Int) -> Int { (value * 255 + maxValue / 2) / maxValue }
        func key(_ data: [UInt8], _ index: Int) -> Int {
            Int(data[2 * index]) << 8 | Int(data[2 * index + 1])
        }
        var out = [UInt8]()
        out.reserveCapacity(width * height * channels * (wide ? 2 : 1))
        func put(_ value: Int) {
            if wide {
                out.append(UInt8(value >> 8))
                out.append(UInt8(value & 0xFF))
            } else {
                out.append(UInt8(value))
            }
        }
        let opaque = wide ? 65535 : 255
        for y in 0..<height {
            for x in 0..<width {
                var color: [Int]
                var alpha = opaque
                switch colorType {
                case .palette:
                    let index = sample(x: x, y: y, channel: 0)
                    color =
                        3 * index + 2 < palette.count
                        ? palette[3 * index..<3 * index + 3].map(Int.init) : [0, 0, 0]
                    if let transparency, index < transparency.count {
                        alpha = Int(transparency[index])
                    }
                case .gray, .rgb:
                    let values = (0..<colorChannels).map { sample(x: x, y: y, channel: $0) }
                    color = wide ? values : values.map(to8)
                    if let transparency, transparency.count >= 2 * colorChannels,
                        (0..<colorChannels).allSatisfy({ key(transparency, $0) == values[$0] })
                    {
                        alpha = 0
                    }
                case .grayAlpha, .rgba:
                    color = (0..<colorChannels).map { sample(x: x, y: y, channel: $0) }
                    alpha = sample(x: x, y: y, channel: colorChannels)
                }
                color.forEach(put)
                if hasAlpha { put(alpha) }
            }
        }
        let type: ColorType =
            isGray ? (hasAlpha ? .grayAlpha : .gray) : (hasAlpha ? .rgba : .rgb)
        return RasterImage(
            width: width, height: height, colorType: type, bitDepth: wide ? 16 : 8, samples: out,
            chunks: chunks.filter { !["PLTE", "tRNS", "sBIT", "bKGD", "hIST"].contains($0.type) })
    }
}
