/// A coordinate space that a geometric value lives in.
///
/// Spaces are caseless enums used only as type parameters: a `Rect<ViewPoints>`
/// and a `Rect<ImagePixels>` are different types, so passing one where the other
/// is expected does not compile. No value converts between spaces except through
/// a mapping that knows the display geometry.
public protocol CoordinateSpace {}

/// A space measured in whole pixels of an image.
///
/// Only rectangles in a pixel space can be rounded to pixels.
public protocol PixelSpace: CoordinateSpace {}

/// The image container (the view), measured in points; origin at its top-left.
public enum ViewPoints: CoordinateSpace {}

/// The image as the person sees it, after EXIF orientation; origin at its top-left.
public enum ImagePixels: PixelSpace {}

/// The pixel buffer as encoded in the file, before EXIF orientation; origin at
/// the top-left of the first stored row.
public enum StoredPixels: PixelSpace {}

/// The straightened pixel frame `P`: the image grid turned by the request's
/// angle about the image's centre, axis-aligned with the screen. Its unit is
/// one image pixel; at an angle of 0 it is the image grid itself. The output
/// rect of a straightened crop lives here.
public enum StraightenedPixels: PixelSpace {}
