/// Whether one run of bytes holds another, ASCII case folded: the search arena's `q=` search, 16
/// positions at a time. Each step compares 16 bytes with the needle's first byte and the 16 bytes
/// `count - 1` further on with its last byte; only positions where both agree (rare in text) are
/// compared in full.
enum ByteSearch {
    /// Whether `haystack` (printable ASCII), lower-cased, holds `needle` (lower case already): each
    /// 16-byte load is folded first, for titles stored as they were given.
    static func containsFoldingASCII(_ haystack: UnsafeRawBufferPointer, _ needle: UnsafeRawBufferPointer) -> Bool {
        let count = needle.count
        guard count > 0 else { return true }
        guard count <= haystack.count, let text = haystack.baseAddress, let pattern = needle.baseAddress else { return false }
        let firstByte = pattern.load(as: UInt8.self)
        let lastByte = pattern.load(fromByteOffset: count - 1, as: UInt8.self)
        let first = SIMD16<UInt8>(repeating: firstByte)
        let last = SIMD16<UInt8>(repeating: lastByte)
        // Positions where the needle may start: 0..<starts.
        let starts = haystack.count - count + 1
        var start = 0
        while start + 16 <= starts {
            let heads = fold((text + start).loadUnaligned(as: SIMD16<UInt8>.self))
            let tails = fold((text + start + count - 1).loadUnaligned(as: SIMD16<UInt8>.self))
            let candidates = (heads .== first) .& (tails .== last)
            if any(candidates) {
                for lane in 0..<16 where candidates[lane] {
                    if equalFolding(text + start + lane + 1, pattern + 1, count - 2) { return true }
                }
            }
            start += 16
        }
        while start < starts {
            if fold(text.load(fromByteOffset: start, as: UInt8.self)) == firstByte,
                fold(text.load(fromByteOffset: start + count - 1, as: UInt8.self)) == lastByte,
                equalFolding(text + start + 1, pattern + 1, count - 2)
            {
                return true
            }
            start += 1
        }
        return false
    }

    /// Lower-cases the ASCII letters of 16 bytes below 0x80 (the arena holds printable ASCII) with
    /// lane-wise arithmetic only: a byte from `A` (0x41) up gets its high bit from `+ 0x3F`, a byte
    /// from `[` (0x5B) up from `+ 0x25`; where exactly one is set the byte is a capital, and that
    /// bit shifted to 0x20 lower-cases it. (Not a masked `replacing(with:where:)`: it compiles to a
    /// scalar loop, one byte at a time.)
    @inline(__always)
    private static func fold(_ bytes: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let fromA = bytes &+ SIMD16(repeating: 0x3F)
        let fromBracket = bytes &+ SIMD16(repeating: 0x25)
        let capitals = (fromA ^ fromBracket) & SIMD16(repeating: 0x80)
        return bytes | (capitals &>> 2)
    }

    @inline(__always)
    private static func fold(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `count` bytes at `text`, lower-cased, equal those at `pattern` (count may be < 1).
    private static func equalFolding(_ text: UnsafeRawPointer, _ pattern: UnsafeRawPointer, _ count: Int) -> Bool {
        var index = 0
        while index < count {
            if fold(text.load(fromByteOffset: index, as: UInt8.self)) != pattern.load(fromByteOffset: index, as: UInt8.self) {
                return false
            }
            index += 1
        }
        return true
    }
}
