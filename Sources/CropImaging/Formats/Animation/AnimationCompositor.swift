import CropGeometry

/// Composites an animation's frames one at a time as its players do: each
/// frame drawn by its blend with its container's arithmetic, then disposed.
/// Holds one canvas, and the part of it a frame disposed to previous
/// restores.
///
/// A WebP is composited as libwebp's `WebPAnimDecoder` does, which browsers
/// and Pillow use: a key frame clears the canvas first and is not blended,
/// and pixels of the previous frame's rect disposed to background are left
/// as decoded.
struct AnimationCompositor {
    let animation: Animation
    /// What the canvas shows: after ``draw(_:pixels:)``, the frame drawn;
    /// after ``dispose()``, what the next frame is drawn on.
    private(set) var canvas: AnimationCanvas
    private let arithmetic: BlendArithmetic
    /// The frame last drawn, and what its disposal to previous restores.
    private var drawn: (index: Int, saved: AnimationCanvas?)?
    /// The previous WebP frame's rect and disposal, and whether it was a key frame.
    private var previousWebP: (rect: PixelRect<StoredPixels>, disposal: FrameDisposal, key: Bool)?

    init(_ animation: Animation) {
        self.animation = animation
        canvas = AnimationCanvas(
            width: animation.canvas.width, height: animation.canvas.height,
            bytesPerChannel: animation.bitDepth == 16 ? 2 : 1)
        arithmetic =
            switch animation.format {
            case .gif: .binary
            case .webp: .libwebp
            default: .exact
            }
    }

    /// Draws frame `index`, whose decoded pixels are `pixels`.
    mutating func draw(_ index: Int, pixels: AnimationCanvas) {
        let frame = animation.frames[index]
        let saved = frame.disposal == .previous ? canvas.cut(frame.rect) : nil
        drawn = (index, saved)
        var untouched: PixelRect<StoredPixels>?
        if arithmetic == .libwebp, case .webp(let data) = frame.data {
            var key = index == 0
            let full = frame.rect.size == animation.canvas
            if full && (!data.hasAlpha || frame.blend == .source) { key = true }
            if let previous = previousWebP, previous.disposal == .background,
                previous.rect.size == animation.canvas || previous.key
            {
                key = true
            }
            if key {
                canvas = AnimationCanvas(
                    width: canvas.width, height: canvas.height, bytesPerChannel: 1)
                untouched = PixelRect(size: animation.canvas)
            } else if let previous = previousWebP, previous.disposal == .background {
                untouched = previous.rect
            }
            previousWebP = (frame.rect, frame.disposal, key)
        }
        canvas.draw(
            pixels, at: frame.rect, blend: frame.blend, arithmetic: arithmetic,
            untouched: untouched)
    }

    /// Disposes the frame last drawn.
    mutating func dispose() {
        guard let (index, saved) = drawn else { return }
        drawn = nil
        let rect = animation.frames[index].rect
        switch animation.frames[index].disposal {
        case .none: break
        case .background: canvas.clear(rect)
        case .previous: if let saved { canvas.paste(saved, x: rect.x, y: rect.y) }
        }
    }
}
