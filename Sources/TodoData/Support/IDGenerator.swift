/// Makes new to-do ids; injected so that tests can predict them.
public protocol IDGenerator: Sendable {
    func makeID() -> String
}

/// Random (version 4, RFC 9562) UUIDs in lower case, from the kernel's generator unless a test
/// injects another source: 122 random bits per id, so ids never repeat in practice (one collision
/// in 2^61 ids is even odds) and cannot be guessed from other ids.
public struct UUIDGenerator: IDGenerator {
    private let random: any RandomSource

    public init(random: any RandomSource = SystemRandom()) {
        self.random = random
    }

    /// `8f0c2f1e-…-4…-[89ab]…` in lower case, written straight from the random words.
    public func makeID() -> String {
        var (high, low) = random.next128()
        high = (high & ~0xF000) | 0x4000  // version 4 (bits 48–51)
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        return String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            let base = out.baseAddress!
            // 8-4-4-4-12 digits: the high word's 16 as 8, 4, 4; the low word's as 4, 12.
            func group(_ value: UInt64, digits: Int) {
                Hex.write(value, digits: digits, to: base + position)
                position += digits
            }
            func dash() {
                base[position] = UInt8(ascii: "-")
                position += 1
            }
            group(high >> 32, digits: 8)
            dash()
            group(high >> 16, digits: 4)
            dash()
            group(high, digits: 4)
            dash()
            group(low >> 48, digits: 4)
            dash()
            group(low, digits: 12)
            return position
        }
    }
}
