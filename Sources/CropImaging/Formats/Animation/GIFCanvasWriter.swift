import CropGeometry

/// Writes GIF frames from displayed canvases (a crop of an APNG or a WebP
/// into GIF): each frame draws the rect where the canvas changed, with a
/// local colour table of the colours it draws. GIF cannot draw a pixel
/// transparent again, so a frame is held until the next is known: when the
/// next one clears pixels this one drew, this one is disposed to
/// background over a rect grown to cover them.
struct GIFCanvasWriter {
    let rect: PixelRect<StoredPixels>
    /// What the output shows before the held frame is drawn.
    private var state: AnimationCanvas
    private var held:
        (
            rect: PixelRect<StoredPixels>, target: AnimationCanvas, duration: FrameDuration,
            index: Int
        )?

    init(rect: PixelRect<StoredPixels>) {
        self.rect = rect
        state = AnimationCanvas(width: rect.width, height: rect.height, bytesPerChannel: 1)
    }

    /// The frames finished by knowing the displayed canvas `target` of
    /// frame `index` (at most one: the frame before it).
    mutating func frames(target: AnimationCanvas, duration: FrameDuration, index: Int)
        throws(ImagingError) -> [OutputFrame]
    {
        guard target.bytesPerChannel == 1 else {
            throw .unsupported(
                format: .gif,
                detail: "frame \(index) has 16-bit samples; GIF holds 256 colours of 8 bits")
        }
        guard duration.isWhole(in: 100) else {
            throw .unsupported(
                format: .gif,
                detail:
                    "frame \(index) is shown for \(duration), not a whole number of hundredths of a second, which is all GIF stores; crop into APNG or WebP to keep it exact"
            )
        }
        for i in 0..<(target.width * target.height) {
            let a = target.alpha(i)
            if a != 0 && a != 255 {
                throw .unsupported(
                    format: .gif,
                    detail:
                        "frame \(index) has partly transparent pixels (alpha \(a) at \(i % target.width),\(i / target.width) of the crop); GIF has only fully transparent ones: crop into APNG or WebP"
                )
            }
        }
        var finished: [OutputFrame] = []
        if let held {
            // Pixels the held frame's canvas shows that this one clears.
            var cleared: PixelRect<StoredPixels>?
            for i in 0..<(target.width * target.height)
            where held.target.alpha(i) != 0 && target.alpha(i) == 0 {
                let x = i % target.width
                let y = i / target.width
                let one = PixelRect<StoredPixels>(x: x, y: y, width: 1, height: 1)
                cleared = cleared.map { $0.union(one) } ?? one
            }
            let drawnRect = cleared.map { held.rect.union($0) } ?? held.rect
            finished.append(
                try encode(
                    held.target, rect: drawnRect, over: state, duration: held.duration,
                    disposal: cleared == nil ? 1 : 2, index: held.index))
            state = held.target
            if cleared != nil { state.clear(drawnRect) }
        }
        let changed =
            AnimationCropper.changedRect(state, target)
            ?? PixelRect(x: 0, y: 0, width: 1, height: 1)
        held = (changed, target, duration, index)
        return finished
    }

    /// The last frame.
    mutating func flush() throws(ImagingError) -> OutputFrame? {
        guard let held else { return nil }
        self.held = nil
        return try encode(
            held.target, rect: held.rect, over: state, duration: held.duration, disposal: 1,
            index: held.index)
    }

    /// A frame drawing `target` over `state` in `rect`: unchanged and
    /// transparent pixels take the transparent index.
    private func encode(
        _ target: AnimationCanvas, rect: PixelRect<StoredPixels>, over state: AnimationCanvas,
        duration: FrameDuration, disposal: Int, index: Int
    ) throws(ImagingError) -> OutputFrame {
        var colours: [UInt32: UInt8] = [:]
        var table: [UInt8] = []
        var indices = [UInt8](repeating: 0, count: rect.width * rect.height)
        var transparent: [Int] = []
        // The first pass finds the colours; the transparent index is the last.
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let i = (rect.y + y) * target.width + rect.x + x
                if target.alpha(i) == 0
                    || state.showsSame(i, as: target, i) && disposal == 1 && state.alpha(i) != 0
                {
                    transparent.append(y * rect.width + x)
                    continue
                }
                let p = 4 * i
                let key =
                    UInt32(target.samples[p]) << 16 | UInt32(target.samples[p + 1]) << 8
                    | UInt32(target.samples[p + 2])
                if let known = colours[key] {
                    indices[y * rect.width + x] = known
                    continue
                }
                guard colours.count < 256 else {
                    throw .unsupported(
                        format: .gif,
                        detail:
                            "frame \(index) draws more than 256 colours in the crop; a GIF frame holds 256: crop into APNG or WebP"
                    )
                }
                let code = UInt8(colours.count)
                colours[key] = code
                table += [target.samples[p], target.samples[p + 1], target.samples[p + 2]]
                indices[y * rect.width + x] = code
            }
        }
        var transparentIndex: Int?
        if !transparent.isEmpty {
            guard colours.count < 256 else {
                throw .unsupported(
                    format: .gif,
                    detail:
                        "frame \(index) needs 256 colours and transparency; a GIF frame holds 256 entries: crop into APNG or WebP"
                )
            }
            transparentIndex = colours.count
            table += [0, 0, 0]
            for at in transparent { indices[at] = UInt8(colours.count) }
        }
        if table.isEmpty { table = [0, 0, 0] }
        let bits = max(2, GIFFileWriter.tableBits(table.count / 3))
        return OutputFrame(
            rect: rect, duration: duration, disposal: disposal == 2 ? .background : .none,
            blend: .over,
            coded: .gif(
                lzw: GIFLZW.encode(indices, minimum: bits), localColours: table,
                transparentIndex: transparentIndex, storedDisposal: disposal),
            how: .losslessAgain)
    }
}

extension PixelRect where Space == StoredPixels {
    /// The smallest rect holding both.
    func union(_ other: PixelRect<StoredPixels>) -> PixelRect<StoredPixels> {
        let x0 = Swift.min(x, other.x)
        let y0 = Swift.min(y, other.y)
        return PixelRect(
            x: x0, y: y0, width: Swift.max(maxX, other.maxX) - x0,
            height: Swift.max(maxY, other.maxY) - y0)
    }
}
