import TodoData

extension TodoListData {
    /// The list's strong entity tag, `"list-<16 hex digits>"`: the FNV-1a 64 hash of what the
    /// answer shows (each item's id and revision, then the total, offset and limit), so that it
    /// changes whenever the page or its total does, and is the same on every instance and every
    /// run (integers hashed as 8 little-endian bytes, ids as their length and UTF-8 bytes).
    public var entityTag: EntityTag {
        var hash = FNV1a64()
        items.withEntries { entries, bytes in
            for entry in entries {
                // A UUID id's text is written on the stack from its 16 bytes: no string per to-do.
                PackedTodos.withIDText(entry, in: bytes) { id in
                    hash.add(UInt64(id.count))
                    hash.add(id)
                }
                hash.add(entry.revision)
            }
        }
        hash.add(UInt64(truncatingIfNeeded: total))
        hash.add(UInt64(truncatingIfNeeded: offset))
        hash.add(UInt64(truncatingIfNeeded: limit))
        return EntityTag(hash.tagText)
    }
}

/// The 64-bit FNV-1a hash (Fowler, Noll, Vo): stable, fast, not cryptographic.
///
/// Byte by byte as the algorithm defines it (each byte XORed in, then one multiplication), but
/// with the bytes read eight at a time and the rounds unrolled: the result is FNV-1a's, bit for
/// bit, with one load and one loop test per eight bytes instead of per byte.
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var hash = value
        var index = 0
        let count = bytes.count
        while count - index >= 8 {
            hash = Self.mix(hash, UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self).littleEndian)
            index += 8
        }
        while index < count {
            hash = (hash ^ UInt64(base[index])) &* Self.prime
            index += 1
        }
        value = hash
    }

    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    /// Eight bytes, least significant first.
    mutating func add(_ integer: UInt64) {
        value = Self.mix(value, integer)
    }

    /// Eight FNV-1a rounds over the bytes of `word`, least significant first.
    @inline(__always)
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        var hash = hash
        hash = (hash ^ (word & 0xFF)) &* prime
        hash = (hash ^ (word >> 8 & 0xFF)) &* prime
        hash = (hash ^ (word >> 16 & 0xFF)) &* prime
        hash = (hash ^ (word >> 24 & 0xFF)) &* prime
        hash = (hash ^ (word >> 32 & 0xFF)) &* prime
        hash = (hash ^ (word >> 40 & 0xFF)) &* prime
        hash = (hash ^ (word >> 48 & 0xFF)) &* prime
        hash = (hash ^ (word >> 56)) &* prime
        return hash
    }

    /// The value as 16 lower-case hex digits.
    var hex: String {
        String(unsafeUninitializedCapacity: 16) { out in
            Hex.write(value, digits: 16, to: out.baseAddress!)
            return 16
        }
    }

    /// `list-` and the 16 hex digits, written at once.
    var tagText: String {
        String(unsafeUninitializedCapacity: 21) { out in
            let base = out.baseAddress!
            for (offset, byte) in "list-".utf8.enumerated() { base[offset] = byte }
            Hex.write(value, digits: 16, to: base + 5)
            return 21
        }
    }
}
