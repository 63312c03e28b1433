/// A to-do id as the server makes them (a UUID in lower case, `8-4-4-4-12` hex digits) held as
/// 16 bytes: `high` is bytes 0-7 and `low` bytes 8-15, big-endian, so that comparing
/// `(high, low)` orders as comparing the id strings does (`0`-`9` sort before `a`-`f`, and the
/// dashes stand at the same places). Any other id string is not one of these (nil).
struct TodoID16: Hashable {
    var high: UInt64
    var low: UInt64

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

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> TodoID16? {
        guard bytes.count == 36, bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for index in 0..<36 where index != 8 && index != 13 && index != 18 && index != 23 {
            let byte = bytes[index]
            let value: UInt8
            if byte &- 0x30 < 10 {
                value = byte &- 0x30
            } else if byte &- 0x61 < 6 {
                value = byte &- 0x61 &+ 10
            } else {
                return nil
            }
            if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            digits += 1
        }
        return TodoID16(high: high, low: low)
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
    @inline(__always)
    func writeText(to out: UnsafeMutablePointer<UInt8>) {
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
