/// Hexadecimal digits, written and read in this one place: to-do ids, request ids, JSON `\u`
/// escapes, percent-encoding and percent-decoding.
package enum Hex {
    /// The ASCII digit of the low four bits of `value`: `0`–`9`, then `a`–`f` (`A`–`F` if `uppercase`).
    @inline(__always)
    package static func digit(_ value: UInt64, uppercase: Bool = false) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: value) & 0xF
        return nibble < 10 ? UInt8(ascii: "0") &+ nibble : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) &+ nibble &- 10
    }

    /// Writes the low `count` digits of `value`, most significant first, at `out[0..<count]`.
    @inline(__always)
    @inlinable
    package static func write(_ value: UInt64, digits count: Int, uppercase: Bool = false, to out: UnsafeMutablePointer<UInt8>) {
        var value = value
        var index = count
        while index > 0 {
            index -= 1
            out[index] = digit(value, uppercase: uppercase)
            value >>= 4
        }
    }

    /// The value of one digit in either case, or nil for any other byte.
    @inline(__always)
    package static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
