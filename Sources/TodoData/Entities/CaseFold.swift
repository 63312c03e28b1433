/// Unicode case folding as closely as the Swift standard library allows without Foundation, for
/// `q=` and `sort=title` in every store (`TitleKey` in memory and in the journal, `TodoTitleKey` in
/// PostgreSQL), so that all of them match and order titles alike.
///
/// The standard library has no case-folding mapping, only each scalar's lower- and upper-case
/// mappings and whether it `changesWhenCaseFolded`. A scalar that does not change stays; one that
/// does becomes the lower case of its upper case (`ς` and `Σ` → `σ`, `ß` → `ss`, `ﬁ` → `fi`,
/// `K` (Kelvin) → `k`, `µ` → `μ`), repeated while that changes it further (`ẞ` → `ß` → `ss`);
/// where that leads back to the scalar itself its upper case is taken (Cherokee folds to upper
/// case: `ꭰ` → `Ꭰ`). This is Unicode's full case folding (`CaseFolding.txt`, statuses C and F, not
/// the Turkic T): checked once against Python 3.11's `str.casefold` (Unicode 14) followed by NFC,
/// the same on all 282,230 scalars Unicode 14 assigns (2026-11-27); `CaseFoldTests` keeps the pairs
/// that matter. The result is then
/// put in NFC, the one normalization form both stores compare in (composed and decomposed `café`
/// are one key).
public enum CaseFold {
    /// `text` case-folded, in NFC.
    public static func folded(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiLowercased(text) }
        var output = String.UnicodeScalarView()
        for scalar in TitleKey.normalized(text).unicodeScalars {
            output.append(contentsOf: folded(scalar))
        }
        return TitleKey.normalized(String(output))
    }

    /// `text.lowercased()` for a text that is all ASCII (every caller checked): `text` itself when
    /// it has no upper-case letter, else one copy with `A`–`Z` made `a`–`z`. The standard library's
    /// `lowercased()` cost a POST ~1,400 instructions (callgrind, a 30-byte title: 2.7 % of the
    /// request) where this costs ~100 and nothing for a lower-case title; `CaseFoldTests` checks it
    /// against `lowercased()` on random ASCII texts.
    public static func asciiLowercased(_ text: String) -> String {
        assert(text.utf8.allSatisfy { $0 < 0x80 }, "asciiLowercased of a text that is not all ASCII")
        let lowered = text.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.contains(where: isUpperASCII) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in bytes.indices { buffer[index] = isUpperASCII(bytes[index]) ? bytes[index] | 0x20 : bytes[index] }
                return bytes.count
            }
        }
        switch lowered {
        case .some(.some(let copy)): return copy
        case .some(.none): return text
        case .none: return text.lowercased()  // not contiguous (a bridged string): the library's way
        }
    }

    @inline(__always)
    private static func isUpperASCII(_ byte: UInt8) -> Bool { byte &- 0x41 < 26 }

    /// One scalar's folding (one or more scalars).
    static func folded(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        guard scalar.properties.changesWhenCaseFolded else { return [scalar] }
        var current = [scalar]
        for _ in 0..<3 {
            var next: [Unicode.Scalar] = []
            for item in current {
                guard item.properties.changesWhenCaseFolded else {
                    next.append(item)
                    continue
                }
                let lowered = Array(
                    String(item.properties.uppercaseMapping).unicodeScalars.flatMap {
                        $0.properties.lowercaseMapping.unicodeScalars
                    })
                next += lowered == [item] ? Array(item.properties.uppercaseMapping.unicodeScalars) : lowered
            }
            if next == current { break }
            current = next
        }
        return current
    }
}
