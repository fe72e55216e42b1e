/// Apple's depth calibration in a depth or disparity map's own XMP
/// (`depthData:`, AVCameraCalibrationData's fields): the camera's intrinsic
/// matrix (`IntrinsicMatrix`, nine values column by column: fx, 0, 0, 0,
/// fy, 0, cx, cy, 1) in pixels of a reference size
/// (`IntrinsicMatrixReferenceWidth`, `…Height`: the photo's stored size),
/// and the lens distortion's centre (`LensDistortionCenterOffsetX`, `…Y`)
/// in the same pixels. A crop moves the principal point and the
/// distortion centre by the crop's stored offset and makes the crop's
/// stored size the reference (DESIGN.md, "Coordinates in metadata"); the
/// focal lengths and distortion coefficients stay. A resized or
/// straightened crop's calibration is removed, and the report says so.
enum DepthCalibration {
    /// The properties that hold places in the reference frame.
    static let properties = [
        "depthData:IntrinsicMatrix", "depthData:IntrinsicMatrixReferenceWidth",
        "depthData:IntrinsicMatrixReferenceHeight", "depthData:LensDistortionCenterOffsetX",
        "depthData:LensDistortionCenterOffsetY",
    ]

    /// `text` with its calibration moved by `places` (a plain crop, the
    /// stored grid kept), or removed, and what changed; `text` unchanged
    /// without one.
    static func map(_ text: String, places: CropPlaces?) -> (String, [String]) {
        guard text.contains("depthData:IntrinsicMatrix") else { return (text, []) }
        guard let places, places.isPlain else {
            var out = text
            for property in properties { _ = XMPCleaner.removing(property, from: &out) }
            return (
                out,
                [
                    "the depth calibration (IntrinsicMatrix, its reference size, the distortion centre) removed: \(places == nil ? "no crop to map it by" : "a resized or straightened crop's is not mapped")"
                ]
            )
        }
        let origin = places.storedRect
        let size = places.outputSize(keepsStoredGrid: true)
        var out = text
        var moved: [String] = []
        // The principal point: the matrix's seventh and eighth values.
        if let open = out.range(of: "<depthData:IntrinsicMatrix>"),
            let close = out.range(
                of: "</depthData:IntrinsicMatrix>", range: open.upperBound..<out.endIndex)
        {
            var values: [Range<String.Index>] = []
            var at = open.upperBound
            while let li = out.range(of: "<rdf:li>", range: at..<close.lowerBound),
                let end = out.range(of: "</rdf:li>", range: li.upperBound..<close.lowerBound)
            {
                values.append(li.upperBound..<end.lowerBound)
                at = end.upperBound
            }
            if values.count == 9, let cx = Double(out[values[6]]), let cy = Double(out[values[7]]) {
                let (x, y) = (cx - Double(origin.x), cy - Double(origin.y))
                // The later value first, so the earlier range stays valid.
                out.replaceSubrange(values[7], with: "\(y)")
                out.replaceSubrange(values[6], with: "\(x)")
                moved.append("principal point \(x),\(y)")
            }
        }
        for (property, shift) in [
            ("depthData:LensDistortionCenterOffsetX", origin.x),
            ("depthData:LensDistortionCenterOffsetY", origin.y),
        ] {
            if let value = XMPRegions.number(property, in: out) {
                out = XMPRegions.setting(property, to: "\(value - Double(shift))", in: out)
            }
        }
        out = XMPRegions.setting(
            "depthData:IntrinsicMatrixReferenceWidth", to: "\(size.width)", in: out)
        out = XMPRegions.setting(
            "depthData:IntrinsicMatrixReferenceHeight", to: "\(size.height)", in: out)
        return (
            out,
            [
                "the depth calibration moved with the crop (\((moved + ["distortion centre and reference size \(size.width)x\(size.height)"]).joined(separator: ", ")))"
            ]
        )
    }
}
