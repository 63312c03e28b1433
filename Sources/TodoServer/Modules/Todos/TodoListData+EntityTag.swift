extension TodoListData {
    /// The list's strong entity tag, `"list-<16 hex digits>"`: the FNV-1a 64 hash of what the
    /// answer shows (each item's id and revision, then the total, offset and limit), so that it
    /// changes whenever the page or its total does, and is the same on every instance and every
    /// run (integers hashed as 8 little-endian bytes, ids as their length and UTF-8 bytes).
    public var entityTag: EntityTag {
        var hash = FNV1a64()
        for item in items {
            var id = item.id
            id.withUTF8 { bytes in
                hash.add(UInt64(bytes.count))
                hash.add(bytes)
            }
            hash.add(item.revision)
        }
        hash.add(UInt64(truncatingIfNeeded: total))
        hash.add(UInt64(truncatingIfNeeded: offset))
        hash.add(UInt64(truncatingIfNeeded: limit))
        return EntityTag("list-" + hash.hex)
    }
}

/// The 64-bit FNV-1a hash (Fowler, Noll, Vo): stable, fast, not cryptographic.
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes { add(byte) }
    }

    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    /// Eight bytes, least significant first.
    mutating func add(_ integer: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: integer >> UInt64(shift))) }
    }

    /// The value as 16 lower-case hex digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
