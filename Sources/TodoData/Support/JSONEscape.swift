/// Which bytes of a string JSON must escape (`"`, `\\`, and those below 0x20): the store marks the
/// titles and ids that need none when it packs them, and the JSON writer copies those as they are.
public enum JSONEscape {
    /// Whether `utf8` has no byte to escape.
    @inlinable
    public static func isClean(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        firstToEscape(in: utf8, from: 0) == utf8.count
    }

    /// The index of the first byte from `start` that needs escaping (`"`, `\\`, below 0x20), or
    /// the count: eight bytes per step with the classic "has a zero byte" word tricks.
    @inlinable
    public static func firstToEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= utf8.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // A byte below 0x20, or one equal to `"` or `\`, sets its high bit in `found`
            // (bytes ≥ 0x80 are masked out by `~word`).
            let below = (word &- ones &* 0x20) & ~word
            let isQuote = (quote &- ones) & ~quote
            let isBackslash = (backslash &- ones) & ~backslash
            if (below | isQuote | isBackslash) & highs != 0 { break }
            index += 8
        }
        while index < utf8.count {
            let byte = base[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }
}
