import CropGeometry
import CropRecords
import Foundation

/// One manifest line of a ``Batch``: parsed, planned, cropped and written,
/// with the same library calls as `cropkit crop`; safe to call from several
/// threads at once.
struct BatchLines: Sendable {
    let batch: Batch
    /// ``BatchOptions/root`` resolved, or `nil`.
    let root: String?
    /// The manifest's folder.
    let base: String

    var options: BatchOptions { batch.options }

    /// One manifest line: parse, plan, crop, write; the same library calls
    /// as `cropkit crop`.
    func process(line: Int, text: String) -> BatchLineResult {
        func failed(
            _ message: String, _ extra: [JSONValue.Member] = [],
            code: BatchFailure.Code = .manifest
        ) -> BatchLineResult {
            .failed(line: line, BatchFailure(code, message), extra)
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            return failed("not valid JSON: \(error)")
        }
        if let problem = ManifestMembers.problem(in: json) {
            return failed(problem)
        }
        if let variants = json["variants"] {
            return processVariants(variants, of: json, line: line)
        }
        guard case .string(let inputName)? = json["input"],
            case .string(let outputName)? = json["output"]
        else {
            return failed("a line needs \"input\" and \"output\" strings (or \"variants\")")
        }
        // Resolved against the manifest's folder and standardized ("a/./b/../c"
        // is "a/c"), as the report shows them.
        func resolve(_ path: String) -> String { ManifestPath.resolve(path, base: base) }
        let input = resolve(inputName)
        let output = resolve(outputName)
        let paths: [JSONValue.Member] = [
            .init("input", .string(input)), .init("output", .string(output)),
        ]
        if let root {
            for (role, path) in [("input", input), ("output", output)]
            where !Self.resolves(path, inside: root) {
                return failed(
                    "the \(role) '\(path)' resolves outside --root '\(root)'", paths,
                    code: .outsideRoot)
            }
        }
        // The line's format: its "format", or its output's extension.
        var formatName: String?
        if let value = json["format"] {
            guard case .string(let name) = value else {
                return failed(
                    "\"format\" must be a string: \(ImageFormat.listing(OutputFormat.names.map { "\"\($0)\"" }))",
                    paths)
            }
            formatName = name
        }
        // A GIF (or .apng) is written by the animation path; the plan is
        // made as for PNG, as crop's is.
        let lowered = output.lowercased()
        let gifOutput = lowered.hasSuffix(".gif") || formatName?.lowercased() == "gif"
        let apngOutput = lowered.hasSuffix(".apng")
        if gifOutput { formatName = nil }
        let planned =
            gifOutput || apngOutput
            ? String(output.dropLast(apngOutput ? 5 : 4)) + ".png" : output
        var frame: Int?
        if let value = json["frame"] {
            guard case .number(_, let number) = value, number >= 0, number == number.rounded()
            else {
                return failed("\"frame\" must be a whole number from 0", paths)
            }
            frame = Int(number)
        }
        let format: OutputFormat
        switch options.format.choose(planned, formatName) {
        case .success(let chosen): format = chosen
        case .failure(let failure):
            let message =
                failure.message.hasPrefix("-o ")
                ? "\"output\" " + failure.message.dropFirst(3) : failure.message
            return failed(message, paths, code: failure.code)
        }
        if !options.force && FileManager.default.fileExists(atPath: output) {
            return Self.skipped(line: line, paths, outputs: [output])
        }
        let job: CropJob
        switch Self.job(from: json) {
        case .failure(let message): return failed(message.text, paths)
        case .success(let region):
            var made = CropJob(
                region: region.region, orientation: region.orientation,
                format: format, lenient: options.lenient)
            switch Self.resampling(from: json) {
            case .failure(let message): return failed(message.text, paths)
            case .success(let resampling): made.resampling = resampling
            }
            job = made
        }
        do throws(ImagingError) {
            var source: ImageSource
            if var animated = try AnimatedImage.open(path: input, limits: options.limits) {
                animated.inflater = options.inflater
                let animatedFormat = AnimatedImage.outputFormat(
                    named: gifOutput ? "gif" : job.format.name)
                switch (frame, animatedFormat) {
                case (let frame?, _):
                    if gifOutput {
                        return failed(
                            "a still frame is written as PNG, JPEG, HEIC, WebP or AVIF, not GIF",
                            paths, code: .invalidRequest)
                    }
                    source = try animated.frame(frame)
                case (nil, let animatedFormat?):
                    return processAnimation(
                        animated, as: animatedFormat, job: job, line: line, output: output,
                        paths: paths)
                case (nil, nil):
                    guard animated.animation.frames.count == 1 else {
                        return failed(
                            "an animation of \(animated.animation.frames.count) frames, and \(job.format.displayName) holds one image: add \"frame\" (0 to \(animated.animation.frames.count - 1)) for a still of one frame, or write GIF, APNG (.png) or WebP",
                            paths, code: .invalidRequest)
                    }
                    source = try animated.frame(0)
                }
            } else {
                let opened = try options.open(input)
                if let sequence = opened.imageSequence {
                    if let refusal = ImageSource.sequenceRefusal(
                        sequence, frame: frame, input: "the input", flag: "\"frame\"")
                    {
                        return failed(refusal, paths, code: .invalidRequest)
                    }
                } else if frame != nil {
                    return failed(
                        "\"frame\" is for an animation; the input is a still image", paths,
                        code: .invalidRequest)
                }
                if gifOutput {
                    return failed(
                        "GIF is written from an animation (GIF, APNG, animated WebP); write a still as PNG, JPEG, HEIC, WebP or AVIF",
                        paths, code: .invalidRequest)
                }
                source = opened
            }
            source.inflater = options.inflater
            let plan: CropPlan
            do throws(CropPlanError) {
                plan = try job.plan(for: source)
            } catch {
                if case .notLossless = error {
                    return failed("not lossless: \(error)", paths, code: .notLossless)
                }
                return failed("no pixels: \(error)", paths, code: .noPixels)
            }
            let folder = (output as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true)
            }
            let report = try plan.write(to: output, replacing: options.force)
            let written = try ImageSource.open(path: output)
            let (location, people) = written.keptPersonalData()
            return BatchLineResult(
                line: line, status: .written,
                members: paths
                    + (plan.resampling.map { resampling -> [JSONValue.Member] in
                        let r = resampling.crop.rect
                        return [
                            .init("angle", .number(resampling.crop.frame.angle)),
                            .init("outputRect", r.json),
                            .init("read", plan.result.json),
                        ]
                    } ?? [.init("pixels", plan.result.json)]) + Self.header(of: written) + [
                        .init("bytes", .number(report.bytes)),
                        // Where the written file says the photo was taken.
                        .init("keptLocation", .array(location.map(\.json))),
                        // The names of people it holds.
                        .init("keptPeople", .array(people.map { .string($0) })),
                    ])
        } catch {
            // Another task writing the same output first is not a failure.
            if case .outputExists = error, !options.force {
                return Self.skipped(line: line, paths, outputs: [output])
            }
            return failed(options.describe(error), paths, code: .imaging(error.code))
        }
    }

    /// A line whose input is an animation and whose output holds one
    /// (GIF, APNG, WebP): every frame cut to the rect, the timeline kept,
    /// reported with crop --json's members.
    func processAnimation(
        _ animated: AnimatedImage, as format: ImageFormat, job: CropJob, line: Int,
        output: String, paths: [JSONValue.Member]
    ) -> BatchLineResult {
        func failed(_ message: String, code: BatchFailure.Code) -> BatchLineResult {
            .failed(line: line, BatchFailure(code, message), paths)
        }
        let rect: PixelRect<StoredPixels>
        do throws(CropPlanError) {
            rect = try animated.rect(for: job)
        } catch {
            return failed("no pixels: \(error)", code: .noPixels)
        }
        do throws(ImagingError) {
            let folder = (output as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true)
            }
            let report = try animated.write(rect, as: format, to: output, replacing: options.force)
            return BatchLineResult(
                line: line, status: .written,
                members: paths + report.jsonMembers(rect: rect))
        } catch {
            if case .outputExists = error, !options.force {
                return Self.skipped(line: line, paths, outputs: [output])
            }
            return failed(options.describe(error), code: .imaging(error.code))
        }
    }

    /// A line with "variants": each variant is the line with the variant's
    /// members replacing its own; all are planned, then written from one
    /// decode (``CropPlan/writeVariants(_:to:replacing:)``).
    func processVariants(_ variants: JSONValue, of json: JSONValue, line: Int)
        -> BatchLineResult
    {
        func failed(
            _ message: String, _ extra: [JSONValue.Member] = [],
            code: BatchFailure.Code = .manifest
        ) -> BatchLineResult {
            .failed(line: line, BatchFailure(code, message), extra)
        }
        func resolve(_ path: String) -> String { ManifestPath.resolve(path, base: base) }
        guard case .array(let list) = variants, !list.isEmpty,
            case .object(let lineMembers) = json,
            case .string(let inputName)? = json["input"]
        else {
            return failed(
                "\"variants\" must be a non-empty array of objects, with \"input\" on the line")
        }
        guard list.count <= options.maxVariants else {
            return failed(
                "\(list.count) variants are more than --max-variants \(options.maxVariants) (each holds its file, encoder and rows at once): split the line, or raise --max-variants"
            )
        }
        let input = resolve(inputName)
        var jobs: [(output: String, job: CropJob)] = []
        for (index, variant) in list.enumerated() {
            guard case .object(let own) = variant, case .string(let outputName)? = variant["output"]
            else {
                return failed("variant \(index + 1) needs an \"output\" string")
            }
            let output = resolve(outputName)
            if let root, !Self.resolves(output, inside: root) || !Self.resolves(input, inside: root)
            {
                return failed(
                    "variant \(index + 1) resolves outside --root '\(root)'", code: .outsideRoot)
            }
            // A variant's own region replaces the line's whole region (its
            // "inside" replaces the line's "pixels"), not member by member.
            var names = Set(own.map(\.key))
            let regionMembers: Set<String> = ["pixels", "inside", "viewport", "selection"]
            if !names.isDisjoint(with: regionMembers) { names.formUnion(regionMembers) }
            let merged = JSONValue.object(
                lineMembers.filter { !names.contains($0.key) && $0.key != "variants" } + own)
            var formatName: String?
            if case .string(let name)? = merged["format"] { formatName = name }
            let format: OutputFormat
            switch options.format.choose(output, formatName) {
            case .success(let chosen): format = chosen
            case .failure(let failure):
                return failed("variant \(index + 1): \(failure.message)", code: failure.code)
            }
            let region: (region: CropJob.Region, orientation: EXIFOrientation?)
            switch Self.job(from: merged) {
            case .failure(let problem): return failed("variant \(index + 1): \(problem.text)")
            case .success(let given): region = given
            }
            var job = CropJob(
                region: region.region, orientation: region.orientation, format: format,
                lenient: options.lenient)
            switch Self.resampling(from: merged) {
            case .failure(let message): return failed("variant \(index + 1): \(message.text)")
            case .success(let resampling): job.resampling = resampling
            }
            jobs.append((output, job))
        }
        let paths: [JSONValue.Member] = [
            .init("input", .string(input)),
            .init("outputs", .array(jobs.map { .string($0.output) })),
        ]
        if !options.force, jobs.allSatisfy({ FileManager.default.fileExists(atPath: $0.output) }) {
            return Self.skipped(line: line, paths, outputs: jobs.map(\.output), variants: true)
        }
        do throws(ImagingError) {
            let source = try options.open(input)
            var plans: [CropPlan] = []
            for (output, job) in jobs {
                do throws(CropPlanError) {
                    plans.append(try job.plan(for: source))
                } catch {
                    return failed("no pixels for \(output): \(error)", paths, code: .noPixels)
                }
            }
            for output in jobs.map(\.output) {
                let folder = (output as NSString).deletingLastPathComponent
                if !folder.isEmpty {
                    try? FileManager.default.createDirectory(
                        atPath: folder, withIntermediateDirectories: true)
                }
            }
            let reports = try CropPlan.writeVariants(
                plans, to: jobs.map(\.output), replacing: options.force)
            return BatchLineResult(
                line: line, status: .written,
                members: paths + [
                    .init(
                        "variants",
                        .array(
                            reports.map { report in
                                let written = try? ImageSource.open(path: report.output ?? "")
                                let (location, people) =
                                    written.map { $0.keptPersonalData() } ?? ([], [])
                                return .object(
                                    [
                                        .init("output", .string(report.output ?? "")),
                                        .init("width", .number(report.size.width)),
                                        .init("height", .number(report.size.height)),
                                    ]
                                        + (written.map {
                                            [.init("format", .string($0.format.rawValue))]
                                        } ?? [])
                                        + [
                                            .init("bytes", .number(report.bytes)),
                                            .init(
                                                "keptLocation", .array(location.map(\.json))
                                            ),
                                            .init("keptPeople", .array(people.map { .string($0) })),
                                        ])
                            }))
                ])
        } catch {
            return failed(options.describe(error), paths, code: .imaging(error.code))
        }
    }

    /// What a written file's header says, for a merge to check it by:
    /// its format ("png") and its size as seen ("width", "height").
    static func header(of written: ImageSource) -> [JSONValue.Member] {
        let size = written.orientation.orientedSize(written.storedSize)
        return [
            .init("format", .string(written.format.rawValue)),
            .init("width", .number(size.width)), .init("height", .number(size.height)),
        ]
    }

    /// A line whose outputs exist (complete: they are written atomically),
    /// with their sizes and headers, so that a merge of the reports can
    /// check them.
    static func skipped(
        line: Int, _ paths: [JSONValue.Member], outputs: [String], variants: Bool = false
    ) -> BatchLineResult {
        func size(_ path: String) -> JSONValue {
            var info = stat()
            return stat(path, &info) == 0 ? .number(Int(info.st_size)) : .null
        }
        func header(_ path: String) -> [JSONValue.Member] {
            (try? ImageSource.open(path: path)).map(Self.header(of:)) ?? []
        }
        let sizes: [JSONValue.Member] =
            variants
            ? [
                .init(
                    "variants",
                    .array(
                        outputs.map {
                            .object(
                                [.init("output", .string($0))] + header($0) + [
                                    .init("bytes", size($0))
                                ])
                        }))
            ]
            : header(outputs[0]) + [.init("bytes", size(outputs[0]))]
        return BatchLineResult(line: line, status: .skipped, members: paths + sizes)
    }

    /// The turn and size a line asks for, checked by ``ResamplingRequest``
    /// as `crop`'s options are:
    /// "angle", "size", "fit", "width", "height", "filter", "fill" and
    /// "circle" (true).
    static func resampling(from json: JSONValue) -> Result<CropJob.Resampling, LineProblem> {
        var request = ResamplingRequest()
        for key in ResamplingRequest.fields {
            switch json[key] {
            case .number(let text, _)?: request.set(key, to: text)
            case .string(let text)?: request.set(key, to: text)
            case nil: break
            default: return .failure(LineProblem(text: "\"\(key)\" must be a number or a string"))
            }
        }
        if case .bool(true)? = json["circle"] { request.circle = true }
        do throws(ResamplingRequestError) {
            return .success(try request.resampling())
        } catch {
            return .failure(LineProblem(text: error.message { "\"\($0)\"" }))
        }
    }

    /// Whether `path` resolves, after symbolic links, inside `root` (itself
    /// resolved): an existing file by its real path; a new one by the real
    /// path of the deepest folder of it that exists, plus the rest (which
    /// holds no "..", having been standardized first).
    static func resolves(_ path: String, inside root: String) -> Bool {
        var known = (path as NSString).standardizingPath
        var rest: [String] = []
        while true {
            if let real = realpath(known, nil) {
                defer { free(real) }
                let full = ([String(cString: real)] + rest.reversed()).joined(separator: "/")
                return full == root || full.hasPrefix(root == "/" ? "/" : root + "/")
            }
            let parent = (known as NSString).deletingLastPathComponent
            let last = (known as NSString).lastPathComponent
            guard !last.isEmpty, last != "..", parent != known else { return false }
            rest.append(last)
            known = parent.isEmpty ? "." : parent
        }
    }

    /// Why a manifest line has no job.
    struct LineProblem: Error {
        var text: String
    }

    /// The region and orientation a manifest line asks for: `pixels`, or a
    /// view selection in the record format (the source size comes from the
    /// image; the orientation too, unless the line gives one).
    static func job(from json: JSONValue)
        -> Result<(region: CropJob.Region, orientation: EXIFOrientation?), LineProblem>
    {
        var orientation: EXIFOrientation?
        if let value = json["orientation"] {
            guard case .number(_, let number) = value, let given = EXIFOrientation(exactly: number)
            else { return .failure(LineProblem(text: "orientation must be 1 to 8")) }
            orientation = given
        }
        // One region, as crop takes one: "inside" chooses the rect itself,
        // so with "pixels" or a view selection beside it the line is
        // refused (it wrote the whole photo for a 50x50 "pixels" before).
        var regions: [String] = []
        if case .bool(true)? = json["inside"] { regions.append("\"inside\"") }
        if json["pixels"] != nil { regions.append("\"pixels\"") }
        if json["viewport"] != nil || json["selection"] != nil {
            regions.append("a view selection (\"viewport\", \"selection\")")
        }
        if regions.count > 1 {
            return .failure(
                LineProblem(
                    text:
                        "\(regions.joined(separator: " and ")) do not go together: give one region"
                        + (regions.contains("\"inside\"")
                            ? " (\"inside\" chooses the rect itself)" : "")))
        }
        if regions.isEmpty {
            return .failure(
                LineProblem(
                    text:
                        "no region: give \"pixels\" {x, y, width, height}, a view selection (\"viewport\" and \"selection\"), or \"angle\" with \"inside\": true"
                ))
        }
        if case .bool(true)? = json["inside"] {
            var aspect: AspectChoice?
            if case .string(let text)? = json["aspect"] {
                guard let parsed = AspectChoice(parsing: text) else {
                    return .failure(LineProblem(text: "\"aspect\" must be \"p:q\" or \"source\""))
                }
                aspect = parsed
            }
            return .success((.largestInside(aspect: aspect), orientation))
        }
        if let pixels = json["pixels"] {
            guard case .number(_, let x)? = pixels["x"], case .number(_, let y)? = pixels["y"],
                case .number(_, let w)? = pixels["width"],
                case .number(_, let h)? = pixels["height"],
                [x, y, w, h].allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 })
            else {
                return .failure(
                    LineProblem(text: "\"pixels\" needs whole numbers x, y, width, height"))
            }
            let rect = PixelRect<ImagePixels>(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
            return .success((.pixels(rect), orientation))
        }
        do throws(CropRecordError) {
            let record = try CropRecord(json: json, sourceGivenBy: "the image")
            return .success((.view(record.request, aspect: record.aspect), orientation))
        } catch {
            return .failure(LineProblem(text: "not a pixel rect or a view selection: \(error)"))
        }
    }
}
