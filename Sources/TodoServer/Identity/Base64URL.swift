/// Base64url (RFC 4648 §5) as JSON Web Tokens and JWKs write it (RFC 7515 §2): without padding,
/// decoded strictly. Refused: `=`, the other alphabet's `+` and `/`, whitespace, a length that
/// leaves one character over, and non-canonical trailing bits (`QR` for `QQ`), so that each byte
/// string has exactly one spelling. The one decoder of the identity code: `Base64URLTests` checks
/// it against Foundation's on random inputs.
enum Base64URL {
    /// The decoded bytes, or nil if `text` is not canonical unpadded base64url.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var pending = 0
        for character in text {
            guard let value = value(of: character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                bytes.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
        }
        switch pending {
        case 2:
            // 12 bits: one byte and 4 bits that must be zero.
            guard accumulator & 0xF == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            // 18 bits: two bytes and 2 bits that must be zero.
            guard accumulator & 0x3 == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            bytes.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            break
        }
        return bytes
    }

    /// The 6-bit value of one character of the base64url alphabet, or nil for any other byte.
    @inline(__always)
    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
