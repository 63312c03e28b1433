#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A title prepared once per change for the list's `sort=title` and `q=`, so that a request
/// compares and searches bytes instead of lowercasing and normalizing titles in every comparison.
///
/// Both strings are in Unicode NFC, so their UTF-8 bytes compare as the strings do (Swift orders
/// strings by their NFC scalars, and UTF-8 keeps scalar order; canonically equivalent strings have
/// the same NFC bytes). Storage is shared with the title where the content is the same: an
/// all-lowercase ASCII title costs no bytes beyond the two references, any other ASCII title one
/// lowercased copy, a non-ASCII title at most two copies (lowercased, and NFC when it was not).
public struct TitleKey: Sendable, Equatable {
    /// The title case-folded (`CaseFold`), in NFC: the primary sort key and what `q=` searches.
    let folded: String
    /// The title in NFC: breaks ties between titles that differ only in case.
    let exact: String
    /// Every byte of `folded` is printable ASCII (0x20-0x7E): each byte is then one character,
    /// so a byte search finds exactly what a character search finds.
    let isPlainASCII: Bool

    init(_ title: String) {
        if Self.everyByte(of: title, { $0 < 0x80 }) {
            folded = Self.sharing(CaseFold.asciiLowercased(title), with: title)
            exact = title
            isPlainASCII = Self.everyByte(of: folded) { (0x20...0x7E).contains($0) }
        } else {
            exact = Self.sharing(Self.normalized(title), with: title)
            folded = Self.sharing(CaseFold.folded(exact), with: exact)
            isPlainASCII = false
        }
    }

    /// `<0`, `0` or `>0` as `a` sorts before, with or after `b`: folded first, then exact.
    static func compare(_ a: TitleKey, _ b: TitleKey) -> Int {
        let folded = compareBytes(a.folded, b.folded)
        return folded != 0 ? folded : compareBytes(a.exact, b.exact)
    }

    /// Whether the title contains `needle`, ignoring case (character by character, as
    /// `String.contains` does, with a byte search when both sides are plain ASCII).
    func contains(_ needle: TitleSearch) -> Bool {
        if needle.folded.isEmpty { return true }
        if isPlainASCII, let shifts = needle.shifts { return Self.containsBytes(folded, needle.folded, shifts: shifts) }
        return folded.contains(needle.folded)
    }

    /// Whether every UTF-8 byte of `string` passes `test`: over its contiguous bytes (a native
    /// string's), where `utf8.allSatisfy` steps through the view's iterator (~30 instructions a byte).
    @inline(__always)
    private static func everyByte(of string: String, _ test: (UInt8) -> Bool) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? string.utf8.allSatisfy(test)
    }

    /// `string`'s NFC form.
    static func normalized(_ string: String) -> String {
        String(decoding: string._nfcCodeUnits, as: UTF8.self)
    }

    /// `candidate`, or `original` (one shared buffer) when both hold the same bytes.
    private static func sharing(_ candidate: String, with original: String) -> String {
        candidate.hasSameBytes(as: original) ? original : candidate
    }

    private static func compareBytes(_ a: String, _ b: String) -> Int {
        withBytes(a) { x in
            withBytes(b) { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : Int(memcmp(x.baseAddress!, y.baseAddress!, common))
                return order != 0 ? order : x.count - y.count
            }
        }
    }

    /// Horspool's search: compares the window's last byte, then the rest, and moves the window by
    /// the needle's shift for that byte (prepared once per request).
    private static func containsBytes(_ haystack: String, _ needle: String, shifts: [Int]) -> Bool {
        withBytes(haystack) { text in
            withBytes(needle) { pattern in
                let count = pattern.count
                guard count <= text.count else { return false }
                let last = pattern[count - 1]
                var start = 0
                while start <= text.count - count {
                    let byte = text[start + count - 1]
                    if byte == last && memcmp(text.baseAddress! + start, pattern.baseAddress!, count - 1) == 0 { return true }
                    start += shifts[Int(byte)]
                }
                return false
            }
        }
    }

    /// Runs `body` on the string's UTF-8 bytes (contiguous for native and small strings).
    private static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }
}

/// A `q=` needle prepared once per request: case-folded (`CaseFold`), in NFC, and for a printable ASCII needle
/// the shift table of Horspool's search.
public struct TitleSearch: Sendable, Equatable {
    let folded: String
    /// How far the search window moves when its last byte is the index: the needle's length for a
    /// byte not in it (but for its last byte), else the distance from its last occurrence to the
    /// end. nil unless the needle is printable ASCII (then a byte search is a character search).
    let shifts: [Int]?

    init(_ needle: String) {
        folded = CaseFold.folded(needle)
        let bytes = Array(folded.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            shifts = nil
            return
        }
        var table = [Int](repeating: bytes.count, count: 256)
        for (index, byte) in bytes.dropLast().enumerated() { table[Int(byte)] = bytes.count - 1 - index }
        shifts = table
    }
}
