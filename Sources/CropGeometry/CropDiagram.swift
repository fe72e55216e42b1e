/// An SVG picture of one mapping: the viewport, the letterbox padding, the
/// display rect (which zoom may push past the viewport), the selection, the
/// part of it that covers the visible image, and the pixel rect the mapping
/// gives, drawn back in the view, with the numbers.
///
/// Every rectangle is an SVG `rect` with an `id` and `data-*` attributes
/// holding the numbers it stands for, so the picture can be checked by a
/// program as well as read by a person.
public enum CropDiagram {
    /// The SVG document for `request` and its outcome.
    ///
    /// - Parameters:
    ///   - request: The mapping to draw.
    ///   - aspect: The aspect ratio the pixel rect is snapped to, if any
    ///     (`map --aspect`); the selection is drawn as made.
    ///   - canvasWidth: The picture's width in SVG units.
    public static func svg(
        for request: CropRequest, aspect: AspectChoice? = nil, width canvasWidth: Double = 480
    ) -> String {
        let outcome = Result { () throws(CropRejection) in try request.map(aspect: aspect) }
        let legend: [(String, String)] = [
            ("#555", "viewport (gray: padding)"), ("#2f6db3", "image"), ("#e07b00", "selection"),
            ("#d9822b", "clip (selection on the image)"), ("#1a8f3a", "pixels"),
        ]
        let view = Rect<ViewPoints>(
            x: 0, y: 0, width: request.viewport.width, height: request.viewport.height)
        let display = try? request.displayRect()
        var bounds = union(view, request.selection)
        if let display { bounds = union(bounds, display) }
        // Keep absurd zooms and far-away selections from shrinking the view
        // to a dot: at most four view sizes around it.
        bounds =
            bounds.intersection(
                Rect(
                    x: -1.5 * view.width, y: -1.5 * view.height, width: 4 * view.width,
                    height: 4 * view.height)) ?? view
        let margin = 0.04 * max(bounds.width, bounds.height)
        let scale = canvasWidth / (bounds.width + 2 * margin)
        // The legend wraps to as many lines as the canvas width needs.
        var legendPlaces: [(x: Double, line: Int)] = []
        var legendX = 6.0
        var legendLine = 0
        for (_, label) in legend {
            let width = Double(label.count) * 6.2
            if legendX > 6, legendX + width > canvasWidth - 6 {
                legendLine += 1
                legendX = 6
            }
            legendPlaces.append((legendX, legendLine))
            legendX += width + 14
        }
        let canvasHeight = (bounds.height + 2 * margin) * scale + 84 + 14 * Double(legendLine)
        func x(_ v: Double) -> String { number((v - bounds.x + margin) * scale) }
        func y(_ v: Double) -> String { number((v - bounds.y + margin) * scale) }
        func size(_ v: Double) -> String { number(max(0, v * scale)) }
        func rect(_ id: String, _ r: Rect<ViewPoints>, _ style: String, data: String = "") -> String
        {
            "<rect id=\"\(id)\" x=\"\(x(r.x))\" y=\"\(y(r.y))\" width=\"\(size(r.width))\" height=\"\(size(r.height))\" \(style) data-view=\"\(r)\"\(data)/>"
        }
        var out: [String] = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(number(canvasWidth))\" height=\"\(number(canvasHeight))\" viewBox=\"0 0 \(number(canvasWidth)) \(number(canvasHeight))\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">",
            "<title>\(escape(title(request, outcome)))</title>",
            // The viewport, filled as padding; the visible image goes on top.
            rect("viewport", view, "fill=\"#e5e5e5\" stroke=\"#555\" stroke-width=\"1.5\""),
        ]
        if let display {
            if let visible = display.intersection(view) {
                out.append(rect("visible-image", visible, "fill=\"#bcd7f2\""))
            }
            out.append(
                rect(
                    "display", display,
                    "fill=\"none\" stroke=\"#2f6db3\" stroke-width=\"1\" stroke-dasharray=\"4 3\"",
                    data:
                        " data-source=\"\(number(request.sourceSize.width))x\(number(request.sourceSize.height))\""
                ))
        }
        if let display, let visible = display.intersection(view),
            let clip = request.selection.intersection(visible)
        {
            out.append(rect("clip", clip, "fill=\"#f6c891\""))
        }
        var caption: String
        switch outcome {
        case .success(let result):
            if let back = try? request.viewRect(for: result.rect) {
                let p = result.rect
                let s = result.stored
                out.append(
                    rect(
                        "pixels", back, "fill=\"none\" stroke=\"#1a8f3a\" stroke-width=\"2\"",
                        data:
                            " data-x=\"\(p.x)\" data-y=\"\(p.y)\" data-width=\"\(p.width)\" data-height=\"\(p.height)\" data-stored=\"\(s)\""
                    ))
            }
            caption = "pixels \(result.rect) (x,y,width,height as seen)"
            if result.orientation != .up { caption += "; stored \(result.stored)" }
        case .failure(let rejection):
            caption = "rejected: \(rejection.code)"
        }
        // The selection last, dashed over the pixels' outline, so that a
        // selection inside the image stays visible where the two meet.
        out.append(
            rect(
                "selection", request.selection,
                "fill=\"none\" stroke=\"#e07b00\" stroke-width=\"2\" stroke-dasharray=\"6 3\""))
        let legendY = (bounds.height + 2 * margin) * scale + 18
        out.append(
            "<text x=\"6\" y=\"\(number(legendY))\" fill=\"#222\" font-weight=\"bold\">\(escape(caption))</text>"
        )
        for (index, line) in details(request, aspect: aspect).enumerated() {
            out.append(
                "<text x=\"6\" y=\"\(number(legendY + 18 * Double(index + 1)))\" fill=\"#555\">\(escape(line))</text>"
            )
        }
        for ((color, label), place) in zip(legend, legendPlaces) {
            out.append(
                "<text x=\"\(number(place.x))\" y=\"\(number(legendY + 54 + 14 * Double(place.line)))\" font-size=\"11\" fill=\"\(color)\">\(escape(label))</text>"
            )
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    private static func title(_ request: CropRequest, _ outcome: Result<CropResult, CropRejection>)
        -> String
    {
        switch outcome {
        case .success(let result): "CropKit mapping: pixels \(result.rect)"
        case .failure(let rejection): "CropKit mapping: rejected (\(rejection.code))"
        }
    }

    private static func details(_ r: CropRequest, aspect: AspectChoice?) -> [String] {
        var first =
            "source \(number(r.sourceSize.width))x\(number(r.sourceSize.height)), view \(number(r.viewport.width))x\(number(r.viewport.height)), \(r.mode.rawValue)"
        if r.orientation != .up { first += ", orientation \(r.orientation.rawValue)" }
        var second = "selection \(r.selection)"
        if let aspect { second += ", aspect \(aspect)" }
        if r.zoom != .identity {
            second +=
                ", zoom \(number(r.zoom.scale)), offset \(number(r.zoom.offset.dx)),\(number(r.zoom.offset.dy))"
        }
        return [first, second]
    }

    private static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let rounded = (v * 100).rounded() / 100
        return rounded == rounded.rounded() && abs(rounded) < 1e15
            ? String(Int64(rounded)) : String(rounded)
    }

    /// `text` with `&`, `<`, `>` and `"` escaped for SVG or HTML text and attributes.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    private static func union(_ a: Rect<ViewPoints>, _ b: Rect<ViewPoints>) -> Rect<ViewPoints> {
        guard [b.x, b.y, b.width, b.height].allSatisfy({ $0.isFinite }) else { return a }
        let x0 = min(a.x, b.x)
        let y0 = min(a.y, b.y)
        return Rect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }
}
