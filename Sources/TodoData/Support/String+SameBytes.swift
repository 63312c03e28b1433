#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// Whether the two strings hold the same UTF-8 bytes (not `==`, which compares canonical
    /// equivalence): one `memcmp` over their storage, none when they share it, rather than
    /// `elementsEqual` stepping through the UTF8 views (the fallback).
    package func hasSameBytes(as other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { mine in other.hasBytes(mine) }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether the string's UTF-8 bytes are exactly `bytes`; nil when its storage is not contiguous.
    func hasBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        utf8.withContiguousStorageIfAvailable { mine in
            mine.count == bytes.count
                && (mine.baseAddress == bytes.baseAddress || mine.isEmpty || memcmp(mine.baseAddress!, bytes.baseAddress!, mine.count) == 0)
        }
    }
}
