/// A to-do id as the server makes them (a UUID in lower case, `8-4-4-4-12` hex digits) held as
/// 16 bytes: `high` is bytes 0-7 and `low` bytes 8-15, big-endian, so that comparing
/// `(high, low)` orders as comparing the id strings does (`0`-`9` sort before `a`-`f`, and the
/// dashes stand at the same places). Any other id string is not one of these (nil).
@usableFromInline package struct TodoID16: Hashable, Sendable {
    @usableFromInline package var high: UInt64
    @usableFromInline package var low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The id's 16 bytes, or nil when `id` is not a lower-case UUID.
    init?(_ id: String) {
        var id = id
        guard let parsed = id.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    /// The 16 bytes of the id whose UTF-8 bytes are `bytes`, or nil when it is not a lower-case UUID.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Self.parse(bytes) else { return nil }
        self = parsed
    }

    /// The five groups' hex digits read eight (or four) at a time as one word each: no loop over
    /// the dashes, no branch on each digit's kind, a few word operations per group.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> TodoID16? {
        guard bytes.count == 36, let base = bytes.baseAddress, base[8] == 0x2D, base[13] == 0x2D, base[18] == 0x2D,
            base[23] == 0x2D
        else { return nil }
        let raw = UnsafeRawPointer(base)
        func eight(_ offset: Int) -> (value: UInt64, valid: Bool) {
            hexDigits(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        }
        func four(_ offset: Int) -> (value: UInt64, valid: Bool) {
            // Four zeros first: the word's last four characters are the group's.
            hexDigits(UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) << 32 | 0x3030_3030)
        }
        let a = eight(0), b = four(9), c = four(14), d = four(19), e = eight(24), f = four(32)
        guard a.valid, b.valid, c.valid, d.valid, e.valid, f.valid else { return nil }
        return TodoID16(high: a.value << 32 | b.value << 16 | c.value, low: d.value << 48 | e.value << 16 | f.value)
    }

    /// The eight characters of `word` (the first in its lowest byte) as eight hex digits, the first
    /// the most significant, and whether each is `0`-`9` or `a`-`f`.
    @inline(__always)
    private static func hexDigits(_ word: UInt64) -> (value: UInt64, valid: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        // With every byte under 0x80, adding 0x80 - n to each byte sets its top bit exactly when
        // the byte is n or more, and never carries into the next byte.
        func atLeast(_ n: UInt64) -> UInt64 { (word &+ (0x80 &- n) &* ones) & high }
        let digit = atLeast(0x30) & ~atLeast(0x3A)
        let letter = atLeast(0x61) & ~atLeast(0x67)
        let valid = word & high == 0 && digit | letter == high
        // `0`-`9` are 0x30-0x39, `a`-`f` 0x61-0x66: the low four bits, plus 9 for a letter.
        var nibbles = (word & (0x0F &* ones)) &+ (letter >> 7) &* 9
        // The first character's digit to the top byte, then the digits packed pairwise.
        nibbles = nibbles.byteSwapped
        nibbles = (nibbles | nibbles >> 4) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles >> 8) & 0x0000_FFFF_0000_FFFF
        nibbles = (nibbles | nibbles >> 16) & 0xFFFF_FFFF
        return (nibbles, valid)
    }

    /// The id string (36 characters, lower case).
    var string: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeText(to: buffer.baseAddress!)
            return 36
        }
    }

    /// Writes the id's 36 characters at `out`: two hex digits per byte, dashes after bytes 4, 6,
    /// 8 and 10, without a branch per digit.
    @inlinable @inline(__always)
    package func writeText(to out: UnsafeMutablePointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        let hex = digits.utf8Start
        var position = 0
        for half in 0..<2 {
            let value = half == 0 ? high : low
            for byte in 0..<8 {
                let bits = value >> UInt64(56 - 8 * byte)
                out[position] = hex[Int(bits >> 4 & 0xF)]
                out[position + 1] = hex[Int(bits & 0xF)]
                position += 2
                let index = half * 8 + byte
                if index == 3 || index == 5 || index == 7 || index == 9 {
                    out[position] = 0x2D
                    position += 1
                }
            }
        }
    }

    /// A well-mixed 64-bit hash (the bytes are random already; the mix guards against ids that
    /// differ only in some bits).
    var hash: UInt64 {
        var x = high ^ (low &* 0x9E37_79B9_7F4A_7C15)
        x ^= x >> 31
        x &*= 0xBF58_476D_1CE4_E5B9
        x ^= x >> 29
        return x
    }

    static func < (a: TodoID16, b: TodoID16) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}
