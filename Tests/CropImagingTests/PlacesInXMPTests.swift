import CropGeometry
import Testing

@testable import CropImaging

/// The XMP cleaners' answers where no crop maps a field: a region or a
/// depth calibration is removed and said so, never kept stale; and
/// malformed regions are removed with their names, with bounded work.
@Suite struct PlacesInXMPTests {
    static let calibration = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:depthData="http://ns.apple.com/depthData/1.0/"><depthData:IntrinsicMatrixReferenceWidth>4032</depthData:IntrinsicMatrixReferenceWidth><depthData:IntrinsicMatrix><rdf:Seq><rdf:li>3032.5</rdf:li><rdf:li>0</rdf:li><rdf:li>0</rdf:li><rdf:li>0</rdf:li><rdf:li>3032.5</rdf:li><rdf:li>0</rdf:li><rdf:li>1988.5</rdf:li><rdf:li>1512.25</rdf:li><rdf:li>1</rdf:li></rdf:Seq></depthData:IntrinsicMatrix><depthData:LensDistortionCenterOffsetX>1990.5</depthData:LensDistortionCenterOffsetX><depthData:Quality>high</depthData:Quality></rdf:Description></rdf:RDF></x:xmpmeta>
        """

    @Test func aCalibrationWithNoCropToMapItByIsRemoved() {
        let (out, changes, _) = XMPCleaner.clean(
            Self.calibration, size: PixelSize(width: 10, height: 10), policy: MetadataPolicy())
        let text = out ?? ""
        #expect(!text.contains("IntrinsicMatrix") && !text.contains("LensDistortionCenter"))
        #expect(text.contains("<depthData:Quality>high</depthData:Quality>"))
        #expect(
            changes.contains { $0.hasPrefix("the depth calibration") && $0.contains("removed") })
    }

    /// Regions that lie: no area, NaN, negative sizes, pixel units: each
    /// removed and named, the rest mapped; a list of more regions than
    /// CropKit maps is removed whole, in bounded time, the packet kept.
    @Test func malformedRegionsAreRemovedByName() {
        func region(_ name: String, _ area: String) -> String {
            "<rdf:li rdf:parseType='Resource'><mwg-rs:Area \(area)/><mwg-rs:Name>\(name)</mwg-rs:Name></rdf:li>"
        }
        let items =
            region("NoArea", "")
            + region("NaN", "stArea:x='nan' stArea:y='0.5' stArea:w='0.1' stArea:h='0.1'")
            + region("Negative", "stArea:x='0.5' stArea:y='0.5' stArea:w='-0.1' stArea:h='0.1'")
            + region(
                "Pixels", "stArea:x='5' stArea:y='5' stArea:w='1' stArea:h='1' stArea:unit='pixel'")
            + String(
                repeating: region(
                    "Many", "stArea:x='0.5' stArea:y='0.5' stArea:w='0.1' stArea:h='0.1'"),
                count: 900)
        let text =
            "<x:xmpmeta><rdf:RDF><rdf:Description><mwg-rs:Regions><mwg-rs:RegionList><rdf:Bag>"
            + items
            + "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>"
        let (out, changes, _) = XMPCleaner.clean(
            text, size: PixelSize(width: 10, height: 10), policy: MetadataPolicy())
        // No crop to map by: the regions go whole, said so.
        #expect(out?.contains("mwg-rs:Regions") == false)
        #expect(changes.contains("MWG regions removed: no crop to map them by"))
        // Mapped by a crop: each malformed one removed by name.
        let plan = CropPlaces.forTesting(
            photo: PixelSize(width: 1000, height: 800),
            rect: PixelRect(x: 0, y: 0, width: 1000, height: 800))
        let (mapped, said, _) = XMPRegions.map(text, places: plan, keepsStoredGrid: false)
        #expect(said.contains { $0.contains("NoArea (its area cannot be read)") }, "\(said)")
        #expect(said.contains { $0.contains("NaN (its area is not a normalized rectangle)") })
        #expect(said.contains { $0.contains("Negative (its area is not a normalized rectangle)") })
        #expect(said.contains { $0.contains("Pixels (its area is not a normalized rectangle)") })
        #expect(said.contains { $0.hasPrefix("mapped 900 MWG region(s)") })
        #expect(mapped.contains("mwg-rs:Regions"))
        // A million regions: counted, not parsed, and removed.
        let many =
            "<mwg-rs:Regions><mwg-rs:RegionList><rdf:Bag>"
            + String(repeating: "<rdf:li/>", count: 1_000_000)
            + "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>"
        let (none, why, _) = XMPRegions.map(many, places: plan, keepsStoredGrid: false)
        #expect(!none.contains("mwg-rs:Regions"))
        #expect(why == ["MWG regions removed: 1000000 items, more than the 1000 CropKit maps"])
    }

    /// IPTC regions that lie: no boundary, an unknown shape or unit, a
    /// polygon of two vertices, a vertex that is not a number, NaN: each
    /// removed and named; a good one in the empty-element form is mapped
    /// and written back in its unit.
    @Test func malformedImageRegionsAreRemovedByName() {
        func region(_ name: String, _ boundary: String) -> String {
            "<rdf:li rdf:parseType='Resource'><Iptc4xmpExt:rId>\(name)</Iptc4xmpExt:rId>\(boundary)</rdf:li>"
        }
        func vertex(_ x: String, _ y: String) -> String {
            "<rdf:li rdf:parseType='Resource'><Iptc4xmpExt:rbX>\(x)</Iptc4xmpExt:rbX><Iptc4xmpExt:rbY>\(y)</Iptc4xmpExt:rbY></rdf:li>"
        }
        let items = [
            region("None", ""),
            region(
                "Star",
                "<Iptc4xmpExt:RegionBoundary Iptc4xmpExt:rbShape='star' Iptc4xmpExt:rbUnit='pixel'/>"
            ),
            region(
                "Inches",
                "<Iptc4xmpExt:RegionBoundary Iptc4xmpExt:rbShape='rectangle' Iptc4xmpExt:rbUnit='inch' Iptc4xmpExt:rbX='1' Iptc4xmpExt:rbY='1' Iptc4xmpExt:rbW='1' Iptc4xmpExt:rbH='1'/>"
            ),
            region(
                "Line",
                "<Iptc4xmpExt:RegionBoundary rdf:parseType='Resource'><Iptc4xmpExt:rbShape>polygon</Iptc4xmpExt:rbShape><Iptc4xmpExt:rbUnit>pixel</Iptc4xmpExt:rbUnit><Iptc4xmpExt:rbVertices><rdf:Seq>\(vertex("1", "1"))\(vertex("5", "5"))</rdf:Seq></Iptc4xmpExt:rbVertices></Iptc4xmpExt:RegionBoundary>"
            ),
            region(
                "Word",
                "<Iptc4xmpExt:RegionBoundary rdf:parseType='Resource'><Iptc4xmpExt:rbShape>polygon</Iptc4xmpExt:rbShape><Iptc4xmpExt:rbUnit>pixel</Iptc4xmpExt:rbUnit><Iptc4xmpExt:rbVertices><rdf:Seq>\(vertex("1", "1"))\(vertex("five", "5"))\(vertex("1", "9"))</rdf:Seq></Iptc4xmpExt:rbVertices></Iptc4xmpExt:RegionBoundary>"
            ),
            region(
                "NaN",
                "<Iptc4xmpExt:RegionBoundary Iptc4xmpExt:rbShape='circle' Iptc4xmpExt:rbUnit='relative' Iptc4xmpExt:rbX='nan' Iptc4xmpExt:rbY='0.5' Iptc4xmpExt:rbRx='0.1'/>"
            ),
            region(
                "Good",
                "<Iptc4xmpExt:RegionBoundary Iptc4xmpExt:rbShape='rectangle' Iptc4xmpExt:rbUnit='pixel' Iptc4xmpExt:rbX='150' Iptc4xmpExt:rbY='120' Iptc4xmpExt:rbW='100' Iptc4xmpExt:rbH='50'/>"
            ),
        ].joined()
        let text =
            "<x:xmpmeta><rdf:RDF><rdf:Description><Iptc4xmpExt:ImageRegion><rdf:Bag>"
            + items + "</rdf:Bag></Iptc4xmpExt:ImageRegion></rdf:Description></rdf:RDF></x:xmpmeta>"
        let plan = CropPlaces.forTesting(
            photo: PixelSize(width: 1000, height: 800),
            rect: PixelRect(x: 100, y: 100, width: 500, height: 400))
        let (mapped, said, _) = XMPRegions.map(text, places: plan, keepsStoredGrid: false)
        for (name, why) in [
            ("None", "it has no RegionBoundary"),
            ("Star", "its shape is not a rectangle, circle or polygon"),
            ("Inches", "its unit is not pixel or relative"),
            ("Line", "its polygon has fewer than 3 vertices"),
            ("Word", "a vertex of its polygon cannot be read"),
            ("NaN", "its circle cannot be read"),
        ] {
            #expect(said.contains { $0.contains("\(name) (\(why))") }, "\(name): \(said)")
            #expect(!mapped.contains(">\(name)<"), "\(name) kept")
        }
        #expect(said.contains("mapped 1 IPTC region(s) (Good)"), "\(said)")
        #expect(
            mapped.contains(
                "<Iptc4xmpExt:rbShape>rectangle</Iptc4xmpExt:rbShape><Iptc4xmpExt:rbUnit>pixel</Iptc4xmpExt:rbUnit><Iptc4xmpExt:rbX>50</Iptc4xmpExt:rbX><Iptc4xmpExt:rbY>20</Iptc4xmpExt:rbY><Iptc4xmpExt:rbW>100</Iptc4xmpExt:rbW><Iptc4xmpExt:rbH>50</Iptc4xmpExt:rbH>"
            ), "\(mapped)")
    }

    /// A region list nested 10⁴ deep (each item holding the next) is
    /// counted, not walked, and removed whole: bounded work, a clear line,
    /// the rest of the packet kept.
    @Test func aListNestedTenThousandDeepIsRemovedWhole() {
        let depth = 10_000
        let nested =
            String(
                repeating: "<rdf:li rdf:parseType='Resource'><mwg-rs:RegionList><rdf:Bag>",
                count: depth)
            + String(repeating: "</rdf:Bag></mwg-rs:RegionList></rdf:li>", count: depth)
        let text =
            "<x:xmpmeta><rdf:RDF><rdf:Description><dc:title>Kept</dc:title><mwg-rs:Regions><mwg-rs:RegionList><rdf:Bag>"
            + nested
            + "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>"
        let plan = CropPlaces.forTesting(
            photo: PixelSize(width: 100, height: 100),
            rect: PixelRect(x: 0, y: 0, width: 50, height: 50))
        let (out, said, _) = XMPRegions.map(text, places: plan, keepsStoredGrid: false)
        #expect(said == ["MWG regions removed: 10000 items, more than the 1000 CropKit maps"])
        #expect(!out.contains("mwg-rs:Regions") && out.contains("<dc:title>Kept</dc:title>"))
        #expect(
            XMPRegions.describe(text).map(\.text) == [
                "XMP MWG regions: more than 1000 (removed by a crop)"
            ])
    }

    /// A packet whose only places are IPTC or Microsoft regions (no MWG
    /// list beside them) is mapped by the cleaner too.
    @Test func regionsWithoutAnMWGListAreMapped() {
        let plan = CropPlaces.forTesting(
            photo: PixelSize(width: 1000, height: 800),
            rect: PixelRect(x: 500, y: 400, width: 500, height: 400))
        var policy = MetadataPolicy()
        policy.places = plan
        let iptc =
            "<x:xmpmeta><rdf:RDF><rdf:Description><Iptc4xmpExt:ImageRegion><rdf:Bag><rdf:li rdf:parseType='Resource'><Iptc4xmpExt:rId>a</Iptc4xmpExt:rId><Iptc4xmpExt:RegionBoundary Iptc4xmpExt:rbShape='rectangle' Iptc4xmpExt:rbUnit='relative' Iptc4xmpExt:rbX='0' Iptc4xmpExt:rbY='0' Iptc4xmpExt:rbW='0.1' Iptc4xmpExt:rbH='0.1'/></rdf:li></rdf:Bag></Iptc4xmpExt:ImageRegion></rdf:Description></rdf:RDF></x:xmpmeta>"
        let (out, said, _) = XMPCleaner.clean(
            iptc, size: PixelSize(width: 500, height: 400), policy: policy)
        #expect(said.contains("removed 1 IPTC region(s): a (outside the crop)"), "\(said)")
        #expect(out?.contains("Iptc4xmpExt:ImageRegion") == false)
        let mp =
            "<x:xmpmeta><rdf:RDF><rdf:Description><MP:RegionInfo><MPRI:Regions><rdf:Bag><rdf:li MPReg:Rectangle='0.6, 0.6, 0.1, 0.1' MPReg:PersonDisplayName='Ann'/></rdf:Bag></MPRI:Regions></MP:RegionInfo></rdf:Description></rdf:RDF></x:xmpmeta>"
        let (moved, told, _) = XMPCleaner.clean(
            mp, size: PixelSize(width: 500, height: 400), policy: policy)
        #expect(told.contains("mapped 1 MP region(s) (Ann)"), "\(told)")
        #expect(
            moved?.contains("MPReg:Rectangle='0.200000, 0.200000, 0.200000, 0.200000'") == true,
            "\(moved ?? "")")
    }
}
