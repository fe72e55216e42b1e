extension PNGChunk {
    /// Why this carried chunk is not valid for an image of `colorType` and
    /// `bitDepth` with `paletteEntries` palette entries, per the PNG
    /// specification, or `nil` when it is. A chunk CropKit copies must be
    /// one any decoder takes: Pillow refuses a file with a 1-byte tRNS, a
    /// 1-byte gAMA or a 3-byte cHRM.
    ///
    /// - Parameter metadataLimit: The most bytes an iCCP profile may inflate to.
    func problem(
        colorType: ColorType, bitDepth: Int, paletteEntries: Int, metadataLimit: Int
    ) -> String? {
        let count = data.count
        func length(_ wanted: Int) -> String? {
            count == wanted ? nil : "has \(count) bytes, not \(wanted)"
        }
        switch type {
        case "gAMA":
            if let wrong = length(4) { return wrong }
            return data.bigEndianUInt32(at: 0) == 0 ? "is zero" : nil
        case "cHRM": return length(32)
        case "sRGB":
            if let wrong = length(1) { return wrong }
            return data[0] > 3 ? "has rendering intent \(data[0]), not 0 to 3" : nil
        case "cICP": return length(4)
        case "mDCV": return length(24)
        case "cLLI": return length(8)
        case "pHYs":
            if let wrong = length(9) { return wrong }
            return data[8] > 1 ? "has unit \(data[8]), not 0 or 1" : nil
        case "tRNS":
            switch colorType {
            case .gray: return length(2)
            case .rgb: return length(6)
            case .palette:
                return count >= 1 && count <= paletteEntries
                    ? nil : "has \(count) entries for a palette of \(paletteEntries)"
            default: return "is not allowed with colour type \(colorType.name) (it has alpha)"
            }
        case "bKGD":
            switch colorType {
            case .gray, .grayAlpha: return length(2)
            case .rgb, .rgba: return length(6)
            case .palette:
                if let wrong = length(1) { return wrong }
                return Int(data[0]) < paletteEntries ? nil : "names palette entry \(data[0])"
            }
        case "sBIT":
            let significant = colorType == .palette ? 8 : bitDepth
            let channels = colorType == .palette ? 3 : colorType.channels
            if let wrong = length(channels) { return wrong }
            return data.allSatisfy({ $0 >= 1 && Int($0) <= significant })
                ? nil : "has a value outside 1 to \(significant)"
        case "hIST":
            return colorType == .palette && count == 2 * paletteEntries
                ? nil : "has \(count) bytes for \(paletteEntries) palette entries"
        case "iCCP":
            guard let nul = data.firstIndex(of: 0), nul >= 1, nul <= 79, nul + 2 <= count,
                data[nul + 1] == 0
            else { return "has no valid profile name and compression method" }
            guard let profile = ICCProfile.profile(fromICCP: self, limit: metadataLimit) else {
                return "holds a profile that does not inflate"
            }
            return ICCProfile.problem(in: profile).map { "holds \($0)" }
        default:
            return nil
        }
    }
}
