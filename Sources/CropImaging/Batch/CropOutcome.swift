import CropGeometry
import CropRecords

extension ImageSource {
    /// Where the written file says the photo was taken and the names of
    /// people it holds, read back from it in one read of its metadata
    /// (``ImageMetadata/locationEntries`` and ``ImageMetadata/people``): a
    /// crop keeps both unless asked not to.
    package func keptPersonalData() -> (
        location: [ImageFileSummary.Detail.Entry], people: [String]
    ) {
        guard let metadata = try? metadata() else { return ([], []) }
        return (metadata.locationEntries, metadata.people)
    }

    /// Why an image sequence (`sequence` names it) is not cropped with
    /// `frame` (`--frame`, a manifest's "frame"), or `nil` when it is: its
    /// primary image is, with frame 0. Later frames are coded from earlier
    /// ones (video), which CropKit does not decode. `input` names the file
    /// as the sentence should (escaped for printing by the caller).
    package static func sequenceRefusal(
        _ sequence: String, frame: Int?, input: String, flag: String = "--frame"
    ) -> String? {
        switch frame {
        case 0: nil
        case nil:
            "\(input) is \(sequence): video coded between frames, which CropKit does not cut frame by frame; add \(flag) 0 to crop its primary image (the still a viewer shows)"
        case let frame?:
            "\(flag) \(frame): \(input) is \(sequence), whose frames after the first are coded from earlier ones (video), which CropKit does not decode; \(flag) 0 crops its primary image"
        }
    }
}

extension AnimationCropReport {
    /// What an animation crop wrote, as a batch line says it: the format,
    /// the rect (`"pixels"`, canvas pixels, an object as a still's), the
    /// timeline and how the frames were made.
    package func jsonMembers(rect: PixelRect<StoredPixels>) -> [JSONValue.Member] {
        var members: [JSONValue.Member] = [
            .init("format", .string(formatName)), .init("pixels", rect.json),
        ]
        let counts: [(String, Int)] = [
            ("width", size.width), ("height", size.height), ("frames", frames),
            ("plays", plays), ("durationMs", totalMilliseconds),
            ("copied", copied), ("encodedLosslessly", losslessAgain),
            ("encodedLossy", lossyAgain), ("bytes", bytes),
        ]
        for (key, count) in counts { members.append(.init(key, .number(count))) }
        // Each piece of metadata not carried: what, and why.
        members.append(
            .init(
                "dropped",
                .array(
                    droppedMetadata.map {
                        .object([
                            .init("what", .string($0.segment)), .init("reason", .string($0.reason)),
                        ])
                    })))
        members.append(.init("warnings", .array(warnings.map { JSONValue.string($0) })))
        return members
    }
}
