/// The state of a crop screen as a value: the source, the view, the layout
/// and the person's selection, with every change a value-type operation that
/// tests can drive without a UI.
///
/// A selection is bound to the *generation* of the source it was made on.
/// Replacing the source (an image that loads asynchronously and replaces the
/// one the person already selected on) starts a new generation; a result
/// computed for an older generation is refused by ``accept(_:)``, so the old
/// scale can never be combined with the new pixel size.
///
/// How a crop screen uses it: the view controller holds a model like this
/// one and calls each method from the UIKit callback named beside it,
/// passing the CoreGraphics values it has (compiled by the tests, like every
/// example in these docs):
///
/// ```swift
/// import CropGeometry
/// import Foundation
///
/// final class CropScreenModel {
///     private(set) var session: CropSession
///
///     init(assetID: String, pixelWidth: Int, pixelHeight: Int, orientation: EXIFOrientation,
///          viewSize: CGSize) {
///         let size = PixelSize<StoredPixels>(width: pixelWidth, height: pixelHeight)
///         session = CropSession(
///             source: .init(identity: assetID, size: size, orientation: orientation),
///             viewport: Size(viewSize))
///     }
///
///     /// The overlay's pan gesture moved the selection to `frame`, in the
///     /// image view's coordinates.
///     func selectionChanged(to frame: CGRect) throws {
///         try session.select(Rect(frame))
///     }
///
///     /// `viewDidLayoutSubviews` (a rotation, split view): the overlay's new
///     /// frame, over the same pixels.
///     func layoutChanged(viewSize: CGSize) -> CGRect {
///         session.layoutChanged(viewport: Size(viewSize))
///         return session.selection?.rect.cgRect ?? .zero
///     }
///
///     /// The full-size photo replaced the preview the person selected on.
///     func fullImageLoaded(pixelWidth: Int, pixelHeight: Int) {
///         let old = session.source
///         session.replaceSource(
///             .init(identity: old.identity, size: PixelSize(width: pixelWidth, height: pixelHeight),
///                   orientation: old.orientation),
///             policy: .remap)
///     }
///
///     /// Export: the pixels to cut, refused if the source changed meanwhile.
///     func pixelsToExport() throws -> CropResult {
///         let crop = try session.crop()       // bound to this generation
///         // ...the app renders or uploads; the source may change meanwhile...
///         return try session.accept(crop)     // refused if it did
///     }
/// }
/// ```
///
/// SwiftUI: keep the session in `@State`, call the same mutations from the
/// gesture's `onChanged`, from `onGeometryChange` (or a `GeometryReader`'s
/// size) for layout changes, and from the task that loads the image.
public struct CropSession: Hashable, Sendable {
    /// What is shown: an identity the app chooses, the stored pixel size and
    /// the EXIF orientation.
    public struct Source: Hashable, Sendable {
        /// The app's name for the image (an asset identifier): a crop is accepted only for the source it was made on.
        public var identity: String
        /// The stored pixel size, as the file's header declares it.
        public var size: PixelSize<StoredPixels>
        /// The EXIF orientation the image is shown with.
        public var orientation: EXIFOrientation

        /// A source named `identity`, of stored `size`, shown with `orientation`.
        public init(
            identity: String, size: PixelSize<StoredPixels>, orientation: EXIFOrientation = .up
        ) {
            self.identity = identity
            self.size = size
            self.orientation = orientation
        }
    }

    /// What happens to a selection when another source replaces the one it
    /// was made on.
    public enum ReplacementPolicy: Hashable, Sendable {
        /// Keep the same image-relative region: the same fraction of the new
        /// image (a preview replaced by the full-size photo).
        case remap
        /// Drop the selection (a different photo).
        case invalidate
    }

    /// The person's selection: the view rect, the pixels it covers, and the
    /// generation they belong to.
    public struct Selection: Hashable, Sendable {
        /// The selection in the view, in points.
        public let rect: Rect<ViewPoints>
        /// The pixels it covers, in the image as seen; with an angle, the
        /// image pixels under its output rect (the bounding box of its quad).
        public let pixels: PixelRect<ImagePixels>
        /// The source generation it was made on.
        public let generation: Int
        /// The output rect `O` in the straightened frame (equal to
        /// ``pixels`` at an angle of 0).
        public let straightened: PixelRect<StraightenedPixels>

        init(
            rect: Rect<ViewPoints>, pixels: PixelRect<ImagePixels>, generation: Int,
            straightened: PixelRect<StraightenedPixels>? = nil
        ) {
            self.rect = rect
            self.pixels = pixels
            self.generation = generation
            self.straightened =
                straightened
                ?? PixelRect(x: pixels.x, y: pixels.y, width: pixels.width, height: pixels.height)
        }
    }

    /// A crop result, tagged with the source generation it was computed for.
    public struct Crop: Hashable, Sendable {
        /// The mapping's result.
        public let result: CropResult
        /// The identity of the source it was computed for.
        public let sourceIdentity: String
        /// The source generation it was computed for.
        public let generation: Int
    }

    /// Why the session refused something.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// There is no selection (none made yet, or dropped by `.invalidate`).
        case noSelection
        /// The result was computed for an earlier source than the current one.
        case staleGeneration(result: Int, current: Int)
        /// The mapping rejected the selection.
        case rejected(CropRejection)

        /// The refusal in a sentence, for a message to the person.
        public var description: String {
            switch self {
            case .noSelection: "there is no selection"
            case .staleGeneration(let result, let current):
                "the crop was computed for source generation \(result), the current one is \(current)"
            case .rejected(let rejection): rejection.description
            }
        }
    }

    /// The image shown now.
    public private(set) var source: Source
    /// Starts at 0; each ``replaceSource(_:policy:)`` adds one.
    public private(set) var generation = 0
    /// The image view's size, in points.
    public private(set) var viewport: Size<ViewPoints>
    /// How the image is laid out in the view.
    public private(set) var mode: ContentMode
    /// Pixels per point of natural size (the unscaled modes only).
    public private(set) var imageScale: Double
    /// The scroll view's zoom and content offset.
    public private(set) var zoom: Zoom
    /// The person's selection, if any.
    public private(set) var selection: Selection?
    /// The straighten angle in degrees, positive clockwise on screen; 0
    /// until ``straighten(to:aspect:)``.
    public private(set) var angle: Double = 0

    /// A session showing `source` in a view of `viewport` points, with no selection.
    public init(
        source: Source, viewport: Size<ViewPoints>, mode: ContentMode = .aspectFit,
        imageScale: Double = 1,
        zoom: Zoom = .identity
    ) {
        self.source = source
        self.viewport = viewport
        self.mode = mode
        self.imageScale = imageScale
        self.zoom = zoom
    }

    /// The mapping request for `rect` under the current source and layout.
    public func request(for rect: Rect<ViewPoints>) -> CropRequest {
        CropRequest(
            sourceSize: Size(width: Double(source.size.width), height: Double(source.size.height)),
            viewport: viewport, selection: rect, mode: mode, imageScale: imageScale, zoom: zoom,
            orientation: source.orientation, angle: angle)
    }

    /// The person selects `rect` (view points) on the current source.
    ///
    /// - Throws: ``Refusal/rejected(_:)`` when it covers no pixel (the
    ///   previous selection is kept).
    public mutating func select(_ rect: Rect<ViewPoints>) throws(Refusal) {
        do throws(CropRejection) {
            if angle == 0 {
                let result = try request(for: rect).map()
                selection = Selection(rect: rect, pixels: result.rect, generation: generation)
            } else {
                let crop = try request(for: rect).straightened()
                guard let covered = crop.readRect(support: 0) else { throw .noImagePixels }
                selection = Selection(
                    rect: rect, pixels: covered, generation: generation, straightened: crop.rect)
            }
        } catch {
            throw .rejected(error)
        }
    }

    /// The straighten gesture: the image turns to `angle` degrees (positive
    /// clockwise on screen) and, as the Photos app does, the selection
    /// becomes the largest rect inside the turned image, of `aspect` if
    /// given, so the export needs no fill.
    ///
    /// - Throws: ``Refusal/rejected(_:)`` for a non-finite angle, a display
    ///   that cannot turn, or when nothing of the ratio fits (the angle and
    ///   selection are then unchanged).
    public mutating func straighten(to angle: Double, aspect: AspectRatio? = nil) throws(Refusal) {
        var turned = request(for: Rect(x: 0, y: 0, width: 1, height: 1))
        turned.angle = angle
        do throws(CropRejection) {
            if angle != 0,
                !turned.displayScaleIsUniform(
                    oriented: source.orientation.orientedSize(source.size))
            {
                throw CropRejection.nonUniformScaleCannotTurn
            }
            let (rect, _) = try turned.largestSelectionInside(aspect: aspect)
            let crop = try turned.with(selection: rect).straightened()
            guard let covered = crop.readRect(support: 0) else { throw .noImagePixels }
            // The view rect maps back to the largest rect exactly (the inverse is
            // exact to far below the snap), unless zoomed in past it.
            self.angle = angle
            selection = Selection(
                rect: rect, pixels: covered, generation: generation,
                straightened: crop.rect)
        } catch {
            throw .rejected(error)
        }
    }

    /// The crop of the current selection at the current angle, resampled to
    /// the size `size` gives (its own size when `nil`).
    ///
    /// - Throws: ``Refusal/noSelection`` or ``Refusal/rejected(_:)``.
    public func straightenedCrop(size: OutputSizeRule? = nil) throws(Refusal) -> StraightenedCrop {
        guard let selection else { throw .noSelection }
        do {
            return try request(for: selection.rect).straightened(size: size)
        } catch {
            throw .rejected(error)
        }
    }

    /// Drops the selection.
    public mutating func clearSelection() {
        selection = nil
    }

    /// A new source replaces the current one: a new generation begins.
    ///
    /// With `.remap` the selection becomes the same fraction of the new image
    /// (and its pixels are mapped again from the new view rect); with
    /// `.invalidate`, or when the remapped region covers no pixel, it is
    /// dropped.
    public mutating func replaceSource(_ newSource: Source, policy: ReplacementPolicy) {
        let old = source
        let oldSelection = selection
        source = newSource
        generation += 1
        selection = nil
        guard policy == .remap, let oldSelection else { return }
        let before = old.orientation.orientedSize(old.size)
        let after = newSource.orientation.orientedSize(newSource.size)
        let sx = Double(after.width) / Double(before.width)
        let sy = Double(after.height) / Double(before.height)
        let p = oldSelection.straightened
        let region = Rect<ImagePixels>(
            x: Double(p.x) * sx, y: Double(p.y) * sy, width: Double(p.width) * sx,
            height: Double(p.height) * sy)
        guard let rect = try? request(for: oldSelection.rect).viewRect(forImageRect: region) else {
            return
        }
        try? select(rect)
    }

    /// The view was laid out again (a rotation, a new container size, a new
    /// zoom): the on-screen selection is derived again from its pixels,
    /// through the inverse mapping, so the same pixels stay selected.
    public mutating func layoutChanged(
        viewport newViewport: Size<ViewPoints>, mode newMode: ContentMode? = nil,
        zoom newZoom: Zoom? = nil
    ) {
        viewport = newViewport
        if let newMode { mode = newMode }
        if let newZoom { zoom = newZoom }
        guard let current = selection else { return }
        guard
            let rect = try? request(for: current.rect).viewRect(
                forStraightened: current.straightened)
        else {
            selection = nil
            return
        }
        // Keep the pixels as they were: the new view rect maps back to them
        // exactly whenever they are visible.
        selection = Selection(
            rect: rect, pixels: current.pixels, generation: generation,
            straightened: current.straightened)
    }

    /// The crop for the current selection, tagged with this generation.
    ///
    /// - Throws: ``Refusal/noSelection`` or ``Refusal/rejected(_:)``
    ///   (``CropRejection/turned(angle:)`` at an angle other than 0: use
    ///   ``straightenedCrop(size:)``).
    public func crop() throws(Refusal) -> Crop {
        guard let selection else { throw .noSelection }
        do {
            let result = try request(for: selection.rect).map()
            return Crop(result: result, sourceIdentity: source.identity, generation: generation)
        } catch {
            throw .rejected(error)
        }
    }

    /// Checks that `crop` was computed for the current source before it is
    /// applied, and returns its result.
    ///
    /// - Throws: ``Refusal/staleGeneration(result:current:)`` for a crop of
    ///   an earlier source.
    public func accept(_ crop: Crop) throws(Refusal) -> CropResult {
        guard crop.generation == generation, crop.sourceIdentity == source.identity else {
            throw .staleGeneration(result: crop.generation, current: generation)
        }
        return crop.result
    }
}
