/// Makes new to-do ids; injected so that tests can predict them.
public protocol IDGenerator: Sendable {
    func makeID() -> String
}

/// Random (version 4, RFC 9562) UUIDs in lower case, from a ChaCha20 keystream keyed from the
/// operating system when the generator is made (`RandomSource`): 122 unpredictable bits per id,
/// so ids never repeat in practice (one collision in 2^61 ids is even odds) and cannot be guessed
/// from other ids. Foundation's `UUID()` opened, read and closed `/dev/urandom` for each id.
public struct UUIDGenerator: IDGenerator {
    private let random = RandomSource()

    public init() {}

    /// `8f0c2f1e-…-4…-[89ab]…` in lower case, written straight from the random words.
    public func makeID() -> String {
        var (high, low) = random.next128()
        high = (high & ~0xF000) | 0x4000                       // version 4 (bits 48–51)
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000 // variant 10
        return String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            // Dashes before hex digits 8, 12, 16 and 20 of 32 (no array: it would be allocated).
            func append(_ word: UInt64, dashAt first: Int, _ second: Int) {
                for index in 0..<16 {
                    if index == first || index == second {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * index)) & 0xF
                    out[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    position += 1
                }
            }
            append(high, dashAt: 8, 12)
            append(low, dashAt: 0, 4)
            return position
        }
    }
}
