import CropGeometry
import CropKitTestSupport
import CropRecords
import Testing

@Suite(.announcesSkips) struct CropSessionTests {
    static let preview = CropSession.Source(
        identity: "IMG_1", size: PixelSize(width: 1000, height: 750))
    static let full = CropSession.Source(
        identity: "IMG_1", size: PixelSize(width: 4000, height: 3000))

    static func session() throws -> CropSession {
        var session = CropSession(source: preview, viewport: Size(width: 300, height: 300))
        try session.select(Rect(x: 75, y: 75, width: 150, height: 150))
        return session
    }

    @Test func remapKeepsTheSameFractionOfTheNewImage() throws {
        var session = try Self.session()
        #expect(session.selection?.pixels == PixelRect(x: 250, y: 125, width: 500, height: 500))
        session.replaceSource(Self.full, policy: .remap)
        #expect(session.generation == 1)
        #expect(session.selection?.pixels == PixelRect(x: 1000, y: 500, width: 2000, height: 2000))
        #expect(
            try session.crop().result.rect == PixelRect(x: 1000, y: 500, width: 2000, height: 2000))
    }

    @Test func remapToAnAwkwardSizeCoversTheSameFraction() throws {
        var session = try Self.session()
        session.replaceSource(
            .init(identity: "IMG_1", size: PixelSize(width: 1001, height: 751)), policy: .remap)
        let p = try #require(session.selection?.pixels)
        // The fraction of the new image, rounded outward: at most a pixel more.
        let (sx, sy) = (1001.0 / 1000, 751.0 / 750)
        #expect(Double(p.x) <= 250 * sx && Double(p.x) >= 250 * sx - 1)
        #expect(Double(p.maxX) >= 750 * sx && Double(p.maxX) <= 750 * sx + 1)
        #expect(Double(p.y) <= 125 * sy && Double(p.maxY) >= 625 * sy)
    }

    @Test func invalidateDropsTheSelection() throws {
        var session = try Self.session()
        session.replaceSource(
            .init(identity: "IMG_2", size: PixelSize(width: 640, height: 480)), policy: .invalidate)
        #expect(session.selection == nil)
        #expect(throws: CropSession.Refusal.noSelection) { try session.crop() }
    }

    /// A result computed for source A is never applied to source B.
    @Test func staleResultsAreRefused() throws {
        var session = try Self.session()
        let onPreview = try session.crop()
        #expect(
            try session.accept(onPreview).rect == PixelRect(x: 250, y: 125, width: 500, height: 500)
        )
        session.replaceSource(Self.full, policy: .remap)
        #expect(throws: CropSession.Refusal.staleGeneration(result: 0, current: 1)) {
            try session.accept(onPreview)
        }
        let onFull = try session.crop()
        #expect(try session.accept(onFull).sourceSize == PixelSize(width: 4000, height: 3000))
    }

    /// After a rotation the view rect changes and the pixels do not, for
    /// every content mode.
    @Test(arguments: ContentMode.allCases)
    func layoutChangeKeepsTheSamePixels(mode: ContentMode) throws {
        var session = CropSession(
            source: .init(identity: "p", size: PixelSize(width: 400, height: 300)),
            viewport: Size(width: 390, height: 844),
            mode: mode, imageScale: 2)
        let display = try session.request(for: Rect(x: 0, y: 0, width: 1, height: 1)).displayRect()
        // A selection well inside the visible image.
        let inner = Rect<ViewPoints>(
            x: max(display.x, 0) + 10, y: max(display.y, 0) + 10, width: 50, height: 40)
        try session.select(inner)
        let before = try #require(session.selection)
        session.layoutChanged(viewport: Size(width: 844, height: 390))
        let after = try #require(session.selection)
        #expect(after.pixels == before.pixels)
        #expect(after.rect != before.rect || mode == .topLeft)
        // Mapping the new view rect forward gives the same pixels when visible.
        if after.rect.x >= 0, after.rect.y >= 0, after.rect.maxX <= 844, after.rect.maxY <= 390 {
            #expect(try session.crop().result.rect == before.pixels)
        }
    }

    /// session -> record -> replay gives the same result.
    @Test func failureRecordReplaysToTheSameResult() throws {
        var session = CropSession(
            source: .init(
                identity: "IMG_9", size: PixelSize(width: 3024, height: 4032), orientation: .right),
            viewport: Size(width: 390, height: 844),
            zoom: Zoom(scale: 1.5, offset: Vector(dx: 20, dy: 40)))
        try session.select(Rect(x: 33.3, y: 420.7, width: 200, height: 250))
        let record = try #require(session.failureRecord(note: "the face was shifted up"))
        let line = record.json.text
        let replayed = try CropRecord(jsonLine: line)
        #expect(try replayed.replay().get() == session.crop().result)
        let json = try JSONValue(parsing: line)
        #expect(json["note"] == .string("the face was shifted up"))
        #expect(json["orientation"] == .number(6))
    }
}
