import CropGeometry

/// A turn and an output size as a person writes them (a command line's
/// options, a manifest line's members), checked into
/// ``CropJob/Resampling``: the one place both are read, so `crop` and
/// `batch` accept and refuse the same values with the same reasons.
public struct ResamplingRequest: Sendable, Hashable {
    /// The straighten angle in degrees ("3.5").
    public var angle: String?
    /// An exact output size, "WxH".
    public var size: String?
    /// The largest size inside "WxH", keeping the aspect.
    public var fit: String?
    /// The output width, keeping the aspect.
    public var width: String?
    /// The output height, keeping the aspect.
    public var height: String?
    /// The filter: "nearest", "bilinear" or "lanczos3".
    public var filter: String?
    /// What shows outside the image: "transparent", "white", "black" or
    /// "#rrggbb".
    public var fill: String?
    /// Whether the output is cut to its inscribed ellipse.
    public var circle = false

    /// A request with none of its fields given: no turn, no resize.
    public init() {}

    /// The field names, as a caller names its own options after them.
    public static let fields = ["angle", "size", "fit", "width", "height", "filter", "fill"]

    /// Sets the field named `name` (one of ``fields``) to `value`.
    public mutating func set(_ name: String, to value: String) {
        switch name {
        case "angle": angle = value
        case "size": size = value
        case "fit": fit = value
        case "width": width = value
        case "height": height = value
        case "filter": filter = value
        case "fill": fill = value
        default: preconditionFailure("no resampling field '\(name)'")
        }
    }

    /// The resampling these fields ask for.
    ///
    /// - Throws: ``ResamplingRequestError`` naming the field that is wrong.
    public func resampling() throws(ResamplingRequestError) -> CropJob.Resampling {
        var resampling = CropJob.Resampling()
        if let text = angle {
            guard let value = Double(text), value.isFinite else {
                throw .invalid(field: "angle", expected: "a finite number of degrees", value: text)
            }
            resampling.angle = value
        }
        let given = [("size", size), ("fit", fit), ("width", width), ("height", height)]
            .filter { $0.1 != nil }.map(\.0)
        if given.count > 1 { throw .conflicting(given[0], given[1]) }
        func box(_ field: String, _ text: String?) throws(ResamplingRequestError)
            -> PixelSize<StraightenedPixels>?
        {
            guard let text else { return nil }
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0,
                w <= 1 << 20, h <= 1 << 20
            else {
                throw .invalid(
                    field: field, expected: "WxH with whole numbers from 1 to 1048576", value: text)
            }
            return PixelSize(width: w, height: h)
        }
        func side(_ field: String, _ text: String?) throws(ResamplingRequestError) -> Int? {
            guard let text else { return nil }
            guard let value = Int(text), value > 0, value <= 1 << 20 else {
                throw .invalid(
                    field: field, expected: "a whole number from 1 to 1048576", value: text)
            }
            return value
        }
        if let exact = try box("size", size) { resampling.size = .exact(exact) }
        if let inside = try box("fit", fit) { resampling.size = .fit(inside) }
        if let wide = try side("width", width) { resampling.size = .width(wide) }
        if let high = try side("height", height) { resampling.size = .height(high) }
        if let text = filter {
            guard let chosen = ResamplingFilter(rawValue: text.lowercased()) else {
                throw .invalid(
                    field: "filter", expected: "nearest, bilinear or lanczos3", value: text)
            }
            resampling.filter = chosen
        }
        if let text = fill {
            guard let color = FillColor(parsing: text) else {
                throw .invalid(
                    field: "fill", expected: "transparent, white, black or #rrggbb", value: text)
            }
            resampling.fill = color
        }
        resampling.ellipse = circle
        return resampling
    }
}

/// Why a ``ResamplingRequest`` has no resampling: the field named, for the
/// caller to name as its own option or member.
public enum ResamplingRequestError: Error, Hashable, Sendable {
    /// The field's value is not of the form it takes.
    case invalid(field: String, expected: String, value: String)
    /// Two output sizes were given.
    case conflicting(String, String)

    /// A sentence naming each field as `name` spells it ("--fit", "\"fit\"").
    public func message(naming name: (String) -> String) -> String {
        switch self {
        case .invalid(let field, let expected, let value):
            "\(name(field)) must be \(expected), not '\(value)'"
        case .conflicting(let first, let second):
            "\(name(first)) and \(name(second)) do not go together: give one output size"
        }
    }
}
