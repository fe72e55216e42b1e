#if canImport(Foundation)
    import Foundation

    // The values a crop screen holds are CoreGraphics ones (a `UIScrollView`'s
    // bounds, a gesture's `CGRect`): these convert them to and from CropKit's
    // typed values without a field-by-field copy. The space is the caller's to
    // name, so a view rect stays a view rect:
    // `Rect<ViewPoints>(selectionFrame)`.

    extension Rect {
        /// The rect of a CoreGraphics value, as given: origin and size are
        /// copied, not standardized, so a negative width stays negative (and
        /// the mapping rejects it, as it would this rect's own).
        public init(_ rect: CGRect) {
            self.init(
                x: Double(rect.origin.x), y: Double(rect.origin.y), width: Double(rect.size.width),
                height: Double(rect.size.height))
        }

        /// The rect as a CoreGraphics value, for UIKit, AppKit and SwiftUI.
        public var cgRect: CGRect { CGRect(x: x, y: y, width: width, height: height) }
    }

    extension Size {
        /// The size of a CoreGraphics value, as given.
        public init(_ size: CGSize) {
            self.init(width: Double(size.width), height: Double(size.height))
        }

        /// The size as a CoreGraphics value.
        public var cgSize: CGSize { CGSize(width: width, height: height) }
    }

    extension Point {
        /// The point of a CoreGraphics value.
        public init(_ point: CGPoint) {
            self.init(x: Double(point.x), y: Double(point.y))
        }

        /// The point as a CoreGraphics value.
        public var cgPoint: CGPoint { CGPoint(x: x, y: y) }
    }

    extension PixelRect {
        /// The whole-pixel rect as a CoreGraphics value (for
        /// `CGImage.cropping(to:)`, which takes a `CGRect` of pixels).
        public var cgRect: CGRect {
            CGRect(x: Double(x), y: Double(y), width: Double(width), height: Double(height))
        }
    }
#endif
