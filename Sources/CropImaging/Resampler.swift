import CropGeometry
import Foundation

/// The filter a resampled crop is made with.
///
/// Each output pixel samples the image at its position `q` (see
/// `StraightenedCrop`); the filters weigh the pixels whose centres lie near
/// `q`, in the samples as stored (gamma-encoded light, as libvips and Pillow
/// do by default).
public enum ResamplingFilter: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The pixel whose square holds `q` (a tie goes right and down). Reads
    /// ½ px around `q`.
    case nearest
    /// The four pixel centres around `q`, weighted by distance. Reads 1 px
    /// around `q`; does not widen when reducing.
    case bilinear
    /// Lanczos-3 (`sinc(x)·sinc(x/3)`, |x| < 3), normalized; when the
    /// output is smaller than the output rect its support widens by the
    /// reduction factor, as libvips and Pillow do, so it averages instead
    /// of skipping pixels.
    case lanczos3

    /// The filter's name, as the command line spells it.
    public var description: String { rawValue }

    /// The default for a crop: Lanczos-3 when the output is smaller than
    /// its rect (a reduction), bilinear otherwise (a turn, or an enlargement).
    public static func standard(for crop: StraightenedCrop) -> ResamplingFilter {
        crop.reduction.x > 1 || crop.reduction.y > 1 ? .lanczos3 : .bilinear
    }

    /// How far from `q` this filter reads, in image pixels, for a crop with
    /// these reductions: what the decoder must cover
    /// (`StraightenedCrop.readRect(support:)`).
    public func support(reduction: (x: Double, y: Double)) -> Double {
        switch self {
        case .nearest: 0.5
        case .bilinear: 1
        case .lanczos3: 3 * max(1, reduction.x, reduction.y)
        }
    }
}

/// What an output pixel shows where its position `q` lies outside the image.
public enum FillColor: Hashable, Sendable, CustomStringConvertible {
    /// Transparent: the output gets an alpha channel (PNG); a JPEG output
    /// has none, and shows white there.
    case transparent
    /// This opaque colour, 8-bit sRGB.
    case rgb(UInt8, UInt8, UInt8)

    /// `transparent`, or `#rrggbb`.
    public var description: String {
        switch self {
        case .transparent: "transparent"
        case .rgb(let r, let g, let b):
            "#" + [r, g, b].map { String(format: "%02x", Int($0)) }.joined()
        }
    }

    /// Parses `transparent`, `#rrggbb`, `rrggbb`, `white` or `black`;
    /// `nil` otherwise.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "transparent", "none": self = .transparent
        case "white": self = .rgb(255, 255, 255)
        case "black": self = .rgb(0, 0, 0)
        default:
            let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
            self = .rgb(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        }
    }
}

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
    /// - Parameters:
    ///   - crop: The output rect, size and sample positions.
    ///   - region: Decoded pixels, upright: gray, gray+alpha, RGB or RGBA at
    ///     8 or 16 bits (see ``RasterImage/directColor()``).
    ///   - origin: Where `region` lies in the image grid.
    /// - Returns: `W×H` pixels of the region's colour type (with alpha
    ///   added per ``outputHasAlpha(_:imageHasAlpha:)``) and bit depth.
    public func render(
        _ crop: StraightenedCrop, from region: RasterImage, at origin: PixelRect<ImagePixels>
    ) -> RasterImage {
        precondition(region.width == origin.width && region.height == origin.height)
        let inputChannels = region.colorType.channels
        let inputHasAlpha = region.colorType == .grayAlpha || region.colorType == .rgba
        let colorChannels = inputHasAlpha ? inputChannels - 1 : inputChannels
        let hasAlpha = outputHasAlpha(crop, imageHasAlpha: inputHasAlpha)
        let outputChannels = colorChannels + (hasAlpha ? 1 : 0)
        let colorType: PNGColorType =
            colorChannels == 1 ? (hasAlpha ? .grayAlpha : .gray) : (hasAlpha ? .rgba : .rgb)
        let wide = region.bitDepth == 16
        let maximum: Float = wide ? 65535 : 255
        let (width, height) = (crop.outputSize.width, crop.outputSize.height)
        let bytesPerSample = wide ? 2 : 1
        let rowBytes = width * outputChannels * bytesPerSample
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        let fillColor: [Float]
        switch fill {
        case .transparent: fillColor = [Float](repeating: 0, count: outputChannels)
        case .rgb(let r, let g, let b):
            let scale: Float = wide ? 257 : 1
            let rgb = [Float(r) * scale, Float(g) * scale, Float(b) * scale]
            let gray = (rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114).rounded()
            fillColor = (colorChannels == 1 ? [gray] : rgb) + (hasAlpha ? [maximum] : [])
        }
        let transform = crop.sampleTransform
        let image = crop.frame.imageSize
        let (imageWidth, imageHeight) = (Double(image.width), Double(image.height))
        let plan = FilterPlan(filter: filter, reduction: crop.reduction)
        let geometry = SampleGeometry(
            transform: transform, originX: Double(origin.x), originY: Double(origin.y),
            regionWidth: region.width, regionHeight: region.height, imageWidth: imageWidth,
            imageHeight: imageHeight)
        region.samples.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                let source = SampleSource(
                    base: input, wide: wide, channels: inputChannels, hasAlpha: inputHasAlpha,
                    rowBytes: region.rowBytes)
                let target = UnsafeSendable(output)
                DispatchQueue.concurrentPerform(iterations: height) { row in
                    var accumulator = [Float](repeating: 0, count: 4)
                    var xWeights = [Float]()
                    var yWeights = [Float]()
                    for column in 0..<width {
                        let base = row * rowBytes + column * outputChannels * bytesPerSample
                        let (u, v, inside) = geometry.position(column: column, row: row)
                        var values = fillColor
                        if inside {
                            plan.sample(
                                source, u: u, v: v, geometry: geometry, into: &accumulator,
                                xWeights: &xWeights, yWeights: &yWeights)
                            values = [Float](repeating: 0, count: outputChannels)
                            for channel in 0..<colorChannels {
                                values[channel] = accumulator[channel]
                            }
                            if hasAlpha {
                                values[colorChannels] = inputHasAlpha ? accumulator[3] : maximum
                            }
                        }
                        for (index, value) in values.enumerated() {
                            let clamped = UInt32(min(max(value, 0), maximum).rounded())
                            if wide {
                                target.buffer[base + 2 * index] = UInt8(clamped >> 8)
                                target.buffer[base + 2 * index + 1] = UInt8(clamped & 0xFF)
                            } else {
                                target.buffer[base + index] = UInt8(clamped)
                            }
                        }
                    }
                }
            }
        }
        return RasterImage(
            width: width, height: height, colorType: colorType, bitDepth: wide ? 16 : 8,
            samples: out)
    }
}

/// A buffer written by disjoint rows from several threads.
private struct UnsafeSendable: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }
}

/// Where output pixels sample the decoded region.
private struct SampleGeometry: Sendable {
    let transform: AffineMap<StraightenedPixels, ImagePixels>
    let originX: Double
    let originY: Double
    let regionWidth: Int
    let regionHeight: Int
    let imageWidth: Double
    let imageHeight: Double

    /// `q` of output pixel `(column, row)` in region coordinates whose
    /// pixel centres are whole numbers, and whether `q` lies in the image
    /// (its closed rectangle).
    @inline(__always)
    func position(column: Int, row: Int) -> (Double, Double, Bool) {
        let q = transform.apply(Point(x: Double(column) + 0.5, y: Double(row) + 0.5))
        let inside = q.x >= 0 && q.y >= 0 && q.x <= imageWidth && q.y <= imageHeight
        return (q.x - originX - 0.5, q.y - originY - 0.5, inside)
    }
}

/// Reads samples of the decoded region.
private struct SampleSource: @unchecked Sendable {
    let base: UnsafeBufferPointer<UInt8>
    let wide: Bool
    let channels: Int
    let hasAlpha: Bool
    let rowBytes: Int

    @inline(__always)
    func value(x: Int, y: Int, channel: Int) -> Float {
        if wide {
            let index = y * rowBytes + 2 * (x * channels + channel)
            return Float(UInt16(base[index]) << 8 | UInt16(base[index + 1]))
        }
        return Float(base[y * rowBytes + x * channels + channel])
    }
}

/// A filter's kernel and support for one crop.
private struct FilterPlan: Sendable {
    let filter: ResamplingFilter
    /// The kernel's widening across and down (1 unless reducing).
    let scaleX: Double
    let scaleY: Double

    init(filter: ResamplingFilter, reduction: (x: Double, y: Double)) {
        self.filter = filter
        // A turned reduction shrinks every direction: widen both axes by
        // the larger factor so the kernel stays round under the turn.
        let widest = max(1, reduction.x, reduction.y)
        (scaleX, scaleY) = (widest, widest)
    }

    @inline(__always)
    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// The filtered value at region position `(u, v)` (pixel centres at
    /// whole numbers) into `accumulator`: colour channels 0..<n and alpha
    /// at 3 (colour un-premultiplied). Reads are clamped to the region,
    /// which repeats the image's edge where the region meets it.
    @inline(__always)
    func sample(
        _ source: SampleSource, u: Double, v: Double, geometry: SampleGeometry,
        into accumulator: inout [Float], xWeights: inout [Float], yWeights: inout [Float]
    ) {
        let (w, h) = (geometry.regionWidth, geometry.regionHeight)
        let colorChannels = source.hasAlpha ? source.channels - 1 : source.channels
        switch filter {
        case .nearest:
            let x = min(max(Int((u + 0.5).rounded(.down)), 0), w - 1)
            let y = min(max(Int((v + 0.5).rounded(.down)), 0), h - 1)
            for channel in 0..<colorChannels {
                accumulator[channel] = source.value(x: x, y: y, channel: channel)
            }
            if source.hasAlpha {
                accumulator[3] = source.value(x: x, y: y, channel: colorChannels)
            }
        case .bilinear:
            let x0 = Int(u.rounded(.down))
            let y0 = Int(v.rounded(.down))
            let fx = Float(u - Double(x0))
            let fy = Float(v - Double(y0))
            let xs = (min(max(x0, 0), w - 1), min(max(x0 + 1, 0), w - 1))
            let ys = (min(max(y0, 0), h - 1), min(max(y0 + 1, 0), h - 1))
            let weights: [(Int, Int, Float)] = [
                (xs.0, ys.0, (1 - fx) * (1 - fy)), (xs.1, ys.0, fx * (1 - fy)),
                (xs.0, ys.1, (1 - fx) * fy), (xs.1, ys.1, fx * fy),
            ]
            combine(source, weights: weights, colorChannels: colorChannels, into: &accumulator)
        case .lanczos3:
            let (rx, ry) = (3 * scaleX, 3 * scaleY)
            let x0 = Int((u - rx).rounded(.up))
            let x1 = Int((u + rx).rounded(.down))
            let y0 = Int((v - ry).rounded(.up))
            let y1 = Int((v + ry).rounded(.down))
            xWeights.removeAll(keepingCapacity: true)
            yWeights.removeAll(keepingCapacity: true)
            for x in x0...x1 { xWeights.append(Float(Self.lanczos3((Double(x) - u) / scaleX))) }
            for y in y0...y1 { yWeights.append(Float(Self.lanczos3((Double(y) - v) / scaleY))) }
            var sums: (Float, Float, Float, Float) = (0, 0, 0, 0)
            var total: Float = 0
            var alphaTotal: Float = 0
            for (j, wy) in yWeights.enumerated() where wy != 0 {
                let y = min(max(y0 + j, 0), h - 1)
                for (i, wx) in xWeights.enumerated() where wx != 0 {
                    let x = min(max(x0 + i, 0), w - 1)
                    let weight = wx * wy
                    let alpha =
                        source.hasAlpha ? source.value(x: x, y: y, channel: colorChannels) : 1
                    let aw = weight * alpha
                    sums.0 += aw * source.value(x: x, y: y, channel: 0)
                    if colorChannels == 3 {
                        sums.1 += aw * source.value(x: x, y: y, channel: 1)
                        sums.2 += aw * source.value(x: x, y: y, channel: 2)
                    }
                    total += weight
                    alphaTotal += aw
                }
            }
            finish(
                sums: sums, total: total, alphaTotal: alphaTotal, source: source,
                colorChannels: colorChannels, into: &accumulator)
        }
    }

    @inline(__always)
    private func combine(
        _ source: SampleSource, weights: [(Int, Int, Float)], colorChannels: Int,
        into accumulator: inout [Float]
    ) {
        var sums: (Float, Float, Float, Float) = (0, 0, 0, 0)
        var total: Float = 0
        var alphaTotal: Float = 0
        for (x, y, weight) in weights {
            let alpha = source.hasAlpha ? source.value(x: x, y: y, channel: colorChannels) : 1
            let aw = weight * alpha
            sums.0 += aw * source.value(x: x, y: y, channel: 0)
            if colorChannels == 3 {
                sums.1 += aw * source.value(x: x, y: y, channel: 1)
                sums.2 += aw * source.value(x: x, y: y, channel: 2)
            }
            total += weight
            alphaTotal += aw
        }
        finish(
            sums: sums, total: total, alphaTotal: alphaTotal, source: source,
            colorChannels: colorChannels, into: &accumulator)
    }

    /// Colour premultiplied by alpha while summing, divided back here.
    @inline(__always)
    private func finish(
        sums: (Float, Float, Float, Float), total: Float, alphaTotal: Float,
        source: SampleSource, colorChannels: Int, into accumulator: inout [Float]
    ) {
        let divisor = alphaTotal != 0 ? alphaTotal : 1
        accumulator[0] = sums.0 / divisor
        if colorChannels == 3 {
            accumulator[1] = sums.1 / divisor
            accumulator[2] = sums.2 / divisor
        }
        if source.hasAlpha { accumulator[3] = total != 0 ? alphaTotal / total : 0 }
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
        let type: PNGColorType =
            isGray ? (hasAlpha ? .grayAlpha : .gray) : (hasAlpha ? .rgba : .rgb)
        return RasterImage(
            width: width, height: height, colorType: type, bitDepth: wide ? 16 : 8, samples: out,
            chunks: chunks.filter { !["PLTE", "tRNS", "sBIT", "bKGD", "hIST"].contains($0.type) })
    }
}
