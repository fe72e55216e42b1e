import CropGeometry

/// One check of an exported crop: what was checked, and whether it held.
public struct ExportCheck: Hashable, Sendable {
    public var name: String
    public var passed: Bool
    public var detail: String

    public init(name: String, passed: Bool, detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }
}

/// The article's export checks, on crops of the fixtures. Pixels are compared,
/// never file bytes.
public enum ExportChecks {
    /// (a) The exported width and height equal the mapping's result.
    public static func size(of output: RasterImage, equals expected: PixelRect<ImagePixels>)
        -> ExportCheck
    {
        let passed = output.width == expected.width && output.height == expected.height
        return ExportCheck(
            name: "size", passed: passed,
            detail:
                "exported \(output.width)x\(output.height), mapped \(expected.width)x\(expected.height)"
        )
    }

    /// (b) Each corner marker of the corners fixture appears in the crop
    /// exactly as often as the crop's stored rect overlaps it: a bottom-right
    /// crop holds no pixel of the top-left marker, and no marker is shifted.
    ///
    /// - Parameters:
    ///   - output: The exported crop (oriented as exported).
    ///   - stored: The crop's rect in the stored fixture.
    ///   - sourceSize: The fixture's stored size.
    public static func cornerMarkers(
        in output: RasterImage, stored: PixelRect<StoredPixels>, sourceSize: PixelSize<StoredPixels>
    ) -> ExportCheck {
        precondition(
            output.colorType == .rgba && output.bitDepth == 8, "the corners fixture is 8-bit RGBA")
        let side = Fixture.markerSide(width: sourceSize.width, height: sourceSize.height)
        let (w, h) = (sourceSize.width, sourceSize.height)
        let markers: [(String, [UInt8], PixelRect<StoredPixels>)] = [
            ("top-left", Fixture.topLeft, PixelRect(x: 0, y: 0, width: side, height: side)),
            (
                "top-right", Fixture.topRight,
                PixelRect(x: w - side, y: 0, width: side, height: side)
            ),
            (
                "bottom-left", Fixture.bottomLeft,
                PixelRect(x: 0, y: h - side, width: side, height: side)
            ),
            (
                "bottom-right", Fixture.bottomRight,
                PixelRect(x: w - side, y: h - side, width: side, height: side)
            ),
        ]
        var counts = [Int](repeating: 0, count: markers.count)
        let words = markers.map { m in
            UInt32(m.1[0]) | UInt32(m.1[1]) << 8 | UInt32(m.1[2]) << 16 | UInt32(m.1[3]) << 24
        }
        output.samples.withUnsafeBytes { raw in
            for i in 0..<output.width * output.height {
                let pixel = raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                for k in 0..<words.count where pixel == words[k] { counts[k] += 1 }
            }
        }
        var problems: [String] = []
        for (index, marker) in markers.enumerated() {
            let overlap = overlapArea(stored, marker.2)
            if counts[index] != overlap {
                problems.append("\(marker.0) marker: \(counts[index]) pixels, expected \(overlap)")
            }
        }
        return ExportCheck(
            name: "corner markers", passed: problems.isEmpty,
            detail: problems.isEmpty
                ? "every marker where the crop overlaps it, and nowhere else"
                : problems.joined(separator: "; "))
    }

    /// (c) No transparent pixel anywhere, border included: the fixture is
    /// opaque, so an export that pads or resamples shows up here.
    public static func noTransparentPixels(in output: RasterImage) -> ExportCheck {
        guard output.colorType == .rgba || output.colorType == .grayAlpha else {
            return ExportCheck(name: "no transparency", passed: true, detail: "no alpha channel")
        }
        let channels = output.colorType.channels
        let bytesPerSample = output.bitDepth == 16 ? 2 : 1
        var transparent = 0
        var firstAt = ""
        output.samples.withUnsafeBufferPointer { samples in
            let stride = channels * bytesPerSample
            let count = min(output.width * output.height, samples.count / stride)
            for i in 0..<count {
                let alpha = i * stride + (channels - 1) * bytesPerSample
                let opaque =
                    samples[alpha] == 255 && (bytesPerSample == 1 || samples[alpha + 1] == 255)
                if !opaque {
                    if transparent == 0 { firstAt = "\(i % output.width),\(i / output.width)" }
                    transparent += 1
                }
            }
        }
        return ExportCheck(
            name: "no transparency", passed: transparent == 0,
            detail: transparent == 0
                ? "every pixel opaque" : "\(transparent) non-opaque pixels, the first at \(firstAt)"
        )
    }

    /// (d) With the coordinates fixture, the exported pixel the person sees at
    /// `(i, j)` is the source pixel at the matching stored position: for
    /// orientation 1, `(x+i, y+j)`.
    public static func coordinates(
        in output: RasterImage, stored: PixelRect<StoredPixels>, orientation: EXIFOrientation
    ) -> ExportCheck {
        precondition(
            output.colorType == .rgb && output.bitDepth == 16,
            "the coordinates fixture is 16-bit RGB")
        let storedCrop = PixelSize<StoredPixels>(width: stored.width, height: stored.height)
        // The pixels are looked up by the expected size: an output of
        // another size fails here instead of being read out of bounds.
        let expected = orientation.orientedSize(storedCrop)
        guard output.width == expected.width, output.height == expected.height,
            output.samples.count >= output.width * output.height * 6
        else {
            return ExportCheck(
                name: "coordinates", passed: false,
                detail:
                    "exported \(output.width)x\(output.height), expected \(expected.width)x\(expected.height): pixels not compared"
            )
        }
        var wrong = 0
        var first = ""
        let blue = (UInt8(Fixture.coordinatesBlue >> 8), UInt8(Fixture.coordinatesBlue & 0xFF))
        output.samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for sy in 0..<stored.height {
                let y = stored.y + sy
                for sx in 0..<stored.width {
                    let seen = orientation.orientedPoint(x: sx, y: sy, storedSize: storedCrop)
                    let p = base + (seen.y * output.width + seen.x) * 6
                    let x = stored.x + sx
                    if p[0] != UInt8(truncatingIfNeeded: x >> 8)
                        || p[1] != UInt8(truncatingIfNeeded: x)
                        || p[2] != UInt8(truncatingIfNeeded: y >> 8)
                        || p[3] != UInt8(truncatingIfNeeded: y)
                        || p[4] != blue.0 || p[5] != blue.1
                    {
                        wrong += 1
                        if wrong == 1 {
                            let r = Int(p[0]) << 8 | Int(p[1])
                            let g = Int(p[2]) << 8 | Int(p[3])
                            first =
                                "output \(seen.x),\(seen.y) holds source \(r),\(g), expected \(x),\(y)"
                        }
                    }
                }
            }
        }
        return ExportCheck(
            name: "coordinates", passed: wrong == 0,
            detail: wrong == 0
                ? "every pixel is the right source pixel" : "\(wrong) pixels wrong; \(first)")
    }
}

private func overlapArea(_ a: PixelRect<StoredPixels>, _ b: PixelRect<StoredPixels>) -> Int {
    let w = min(a.maxX, b.maxX) - max(a.x, b.x)
    let h = min(a.maxY, b.maxY) - max(a.y, b.y)
    return w > 0 && h > 0 ? w * h : 0
}
