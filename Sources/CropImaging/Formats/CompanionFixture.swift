import CropGeometry

/// The photos with a gain map that ``CompanionExportVerifier`` crops, one
/// for each format whose crops carry one: a JPEG with an MPF gain map
/// described by `hdrgm` XMP (Ultra HDR's form), and a HEIC or AVIF with an
/// auxiliary image of Apple's gain-map role linked by `auxl`. Each is one
/// coded image beside one coded map.
enum CompanionFixture {
    /// The formats a fixture is made in.
    static let formats: [ImageFormat] = [.jpeg, .heif, .avif]

    /// `photo` (8-bit RGB) with `map` (8-bit gray) as its gain map, in
    /// `format`, and the output a crop of it is written as.
    ///
    /// - Throws: ``ImagingError/unsupported(format:detail:)`` for another
    ///   format, or where libheif cannot encode the codec.
    static func make(_ format: ImageFormat, photo: RasterImage, map: RasterImage)
        throws(ImagingError) -> (bytes: [UInt8], output: OutputFormat)
    {
        switch format {
        case .jpeg:
            let description = Array(
                "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" hdrgm:Version=\"1.0\"/></rdf:RDF></x:xmpmeta>"
                    .utf8)
            let mapBytes = try JPEGEncoder.encoded(
                map, quality: 100, horizontal: [1], vertical: [1],
                markers: JPEGMetadata.segment(0xE1, description))
            var primary = try JPEGEncoder.encoded(
                photo, quality: 95, horizontal: [2, 1, 1], vertical: [2, 1, 1],
                markers: MPFIndex.segment(secondAttribute: 0))
            guard MPFIndex.patch(&primary, secondSize: mapBytes.count) else {
                throw .encodeFailed(format: "jpeg", detail: "the fixture's MPF index")
            }
            return (primary + mapBytes, .jpeg(JPEGEncoder()))
        case .heif:
            return (try heif(photo: photo, map: map, codec: .hevc), .heif(HEIFEncoder()))
        case .avif:
            return (try heif(photo: photo, map: map, codec: .av1), .avif(AVIFEncoder()))
        default:
            throw .unsupported(
                format: format, detail: "its crops carry no gain map: use jpeg, heic or avif")
        }
    }

    /// Whether a crop's cut `cut` of the fixture's map of `size` in
    /// `format` is a copy, to be checked as exact: a JPEG map's blocks on
    /// its 8-pixel grid; a HEIF's one coded map only when the cut is all of
    /// it (any other cut encodes its one tile again).
    static func copiesExactly(
        _ format: ImageFormat, cut: CompanionCut<StoredPixels>, size: PixelSize<StoredPixels>
    ) -> Bool {
        guard let copy = cut.copyRect else { return false }
        switch format {
        case .jpeg: return copy.x % 8 == 0 && copy.y % 8 == 0
        default: return copy == PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        }
    }

    /// The alignment goal of a crop's map in `format` (the companion
    /// contract's): a JPEG gain map's mean 0.6 and 99th percentile 3 codes,
    /// a HEIF companion's 1 and 4.
    static func goal(_ format: ImageFormat) -> (mean: Double, p99: Double) {
        format == .jpeg ? (0.6, 3) : (1, 4)
    }

    /// A HEIF of `codec`: the photo and the map (coded as YCbCr 4:2:0 of
    /// gray, quality 98) each encoded whole by libheif, carried into one
    /// file by CropKit's writer.
    private static func heif(photo: RasterImage, map: RasterImage, codec: HEIFCodec)
        throws(ImagingError) -> [UInt8]
    {
        func coded(_ image: RasterImage, quality: Int) throws(ImagingError) -> (
            boxes: [[UInt8]], configuration: [UInt8], data: [UInt8]
        ) {
            let file = try AVIFEncoder.encodeWhole(
                image, quality: quality, icc: nil, exif: nil, xmp: nil, codec: codec)
            let input = ImageInput(bytes: file, name: "a fixture's image")
            let info = try HEIFFileInfo.read(input, limits: .standard)
            guard !info.layout.isGrid, info.cleanAperture == nil, let tile = info.layout.tiles.first
            else {
                throw .encodeFailed(
                    format: codec.brand,
                    detail: "the encoder wrote no plain image of \(image.width)x\(image.height)")
            }
            var data: [UInt8] = []
            for extent in tile.extents { data += file[extent] }
            return (tile.colourBoxes + (tile.pixi.map { [$0] } ?? []), tile.configuration, data)
        }
        let rgbMap = RasterImage(
            width: map.width, height: map.height, colorType: .rgb, bitDepth: 8,
            samples: map.samples.flatMap { [$0, $0, $0] })
        let (photoCoded, mapCoded) = (try coded(photo, quality: 90), try coded(rgbMap, quality: 98))
        var writer = HEIFFileWriter(codec: codec)
        let primary = writer.addItem(
            type: codec.itemType, hidden: false,
            properties: [
                (photoCoded.configuration, true),
                (HEIFFileWriter.ispe(width: photo.width, height: photo.height), false),
            ] + photoCoded.boxes.map { ($0, false) })
        writer.setData(primary, .bytes(photoCoded.data))
        writer.primary = primary
        var auxC = HEIFBoxWriter()
        auxC.begin("auxC", version: 0)
        auxC.string("urn:com:apple:photo:2020:aux:hdrgainmap")
        auxC.end()
        let gain = writer.addItem(
            type: codec.itemType, hidden: true,
            properties: [
                (mapCoded.configuration, true),
                (HEIFFileWriter.ispe(width: map.width, height: map.height), false),
            ] + mapCoded.boxes.map { ($0, false) } + [(auxC.bytes, true)])
        writer.setData(gain, .bytes(mapCoded.data))
        writer.reference("auxl", from: gain, to: [primary])
        let sink = MemorySink()
        _ = try writer.write(to: sink, input: ImageInput(bytes: [], name: "(none)"))
        return sink.bytes
    }
}
