import CropGeometry

// The 8-bit conversions every writer that encodes 8-bit pictures shares
// (JPEG, WebP, AVIF from pixels) and the export checks use: the pixel
// model's own, not one format's.

extension RasterImage {
    /// A sample brought to 8 bits (16-bit ones rounded).
    static func eightBits(_ value: Int, wide: Bool) -> Int {
        wide ? (value * 255 + 32767) / 65535 : value
    }

    /// An 8-bit colour sample of this `opacity` composited onto white.
    static func onWhite(_ value: Int, opacity: Int) -> UInt8 {
        UInt8((value * opacity + 255 * (255 - opacity) + 127) / 255)
    }

    /// The warning of an output whose `count` translucent pixels were
    /// flattened onto white (a JPEG's), or `nil` when every pixel was opaque.
    static func flatteningWarning(translucent count: Int) -> String? {
        count > 0
            ? "JPEG has no transparency: \(count) pixel(s) that were not opaque were flattened onto white"
            : nil
    }
}

extension RasterImage {
    /// These pixels as 8-bit gray or RGB for a JPEG: a palette expanded,
    /// samples scaled to 8 bits, transparency (alpha or tRNS) flattened
    /// onto white; a warning counts the pixels that were not opaque.
    func eightBitOpaque(warnings: inout [String]) -> RasterImage {
        let keyed = chunks.contains(where: { $0.type == "tRNS" })
        if colorType == .rgb || colorType == .gray, bitDepth == 8, !keyed {
            return RasterImage(
                width: width, height: height, colorType: colorType, bitDepth: 8, samples: samples)
        }
        // The common case, fast: 8-bit RGBA whose alpha is all opaque.
        if colorType == .rgba, bitDepth == 8, !keyed {
            var out = [UInt8](repeating: 0, count: width * height * 3)
            var opaque = true
            samples.withUnsafeBufferPointer { from in
                out.withUnsafeMutableBufferPointer { to in
                    for pixel in 0..<(width * height) {
                        to[3 * pixel] = from[4 * pixel]
                        to[3 * pixel + 1] = from[4 * pixel + 1]
                        to[3 * pixel + 2] = from[4 * pixel + 2]
                        if from[4 * pixel + 3] != 255 { opaque = false }
                    }
                }
            }
            if opaque {
                return RasterImage(
                    width: width, height: height, colorType: .rgb, bitDepth: 8, samples: out)
            }
        }
        // Everything else as direct colour (palette expanded, low depths
        // scaled to 8 bits, tRNS as alpha), brought to 8 bits and flattened.
        let direct = directColor()
        let hasAlpha = direct.colorType == .grayAlpha || direct.colorType == .rgba
        let colorChannels = direct.colorType.channels - (hasAlpha ? 1 : 0)
        let isGray = colorChannels == 1
        let wide = direct.bitDepth == 16
        var out = [UInt8]()
        out.reserveCapacity(width * height * (isGray ? 1 : 3))
        var translucent = 0
        for y in 0..<height {
            for x in 0..<width {
                let alpha =
                    hasAlpha
                    ? RasterImage.eightBits(
                        direct.sample(x: x, y: y, channel: colorChannels), wide: wide) : 255
                if alpha < 255 { translucent += 1 }
                for channel in 0..<colorChannels {
                    let value = RasterImage.eightBits(
                        direct.sample(x: x, y: y, channel: channel), wide: wide)
                    out.append(RasterImage.onWhite(value, opacity: alpha))
                }
            }
        }
        if let warning = RasterImage.flatteningWarning(translucent: translucent) {
            warnings.append(warning)
        }
        return RasterImage(
            width: width, height: height, colorType: isGray ? .gray : .rgb, bitDepth: 8,
            samples: out)
    }
}

extension CropPlan {
    /// The crop decoded, brought to 8-bit RGB or RGBA (``RasterImage/eightBitRGB()``)
    /// and turned upright: what a writer that encodes whole 8-bit pictures
    /// (WebP, AVIF from pixels) takes. Each step replaces the image it was
    /// made from, so that no more than two copies live at once.
    func uprightEightBitRGB() throws(ImagingError) -> DecodedImage {
        var decoded = try source.decode(stored, lenient: lenient)
        decoded.image = decoded.image.eightBitRGB()
        decoded.image = decoded.image.oriented(orientation)
        return decoded
    }
}

extension RasterImage {
    /// These pixels as 8-bit RGB, or RGBA when they have transparency (an
    /// alpha channel or tRNS): a palette expanded, gray repeated, 16-bit
    /// samples rounded to 8 bits.
    func eightBitRGB() -> RasterImage {
        if colorType == .rgb || colorType == .rgba, bitDepth == 8,
            !chunks.contains(where: { $0.type == "tRNS" })
        {
            return RasterImage(
                width: width, height: height, colorType: colorType, bitDepth: 8, samples: samples)
        }
        let direct = directColor()
        let hasAlpha = direct.colorType == .grayAlpha || direct.colorType == .rgba
        let colorChannels = direct.colorType.channels - (hasAlpha ? 1 : 0)
        let wide = direct.bitDepth == 16
        let pixel = hasAlpha ? 4 : 3
        var out = [UInt8](repeating: 0, count: width * height * pixel)
        var at = 0
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    out[at + channel] = UInt8(
                        RasterImage.eightBits(
                            direct.sample(x: x, y: y, channel: colorChannels == 1 ? 0 : channel),
                            wide: wide))
                }
                if hasAlpha {
                    out[at + 3] = UInt8(
                        RasterImage.eightBits(
                            direct.sample(x: x, y: y, channel: colorChannels), wide: wide))
                }
                at += pixel
            }
        }
        return RasterImage(
            width: width, height: height, colorType: hasAlpha ? .rgba : .rgb, bitDepth: 8,
            samples: out)
    }
}
