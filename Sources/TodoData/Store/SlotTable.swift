/// The in-memory store's id → slot map: open addressing with linear probing over a power-of-two
/// array of 4-byte slot numbers (`empty`, `tombstone` or a slot). The table holds no ids: the
/// caller hashes an id and says whether a slot holds it, so an id is stored once, in its record.
/// A removal leaves a tombstone (probes go on past it); when live entries and tombstones fill
/// three quarters of the buckets the table is rebuilt, doubled when the live entries alone fill
/// more than half (else at the same size, which clears the tombstones).
struct SlotTable {
    static let empty: Int32 = -1
    static let tombstone: Int32 = -2

    private(set) var buckets: [Int32]
    private(set) var count = 0
    private(set) var tombstones = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity { size *= 2 }
        buckets = [Int32](repeating: Self.empty, count: size)
    }

    private var mask: Int { buckets.count - 1 }

    /// The slot for the id with `hash` that `holds` accepts, or nil.
    func find(hash: UInt64, _ holds: (Int32) -> Bool) -> Int32? {
        var bucket = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = buckets[bucket]
            if slot == Self.empty { return nil }
            if slot >= 0 && holds(slot) { return slot }
            bucket = (bucket + 1) & mask
        }
    }

    /// Files `slot` under `hash` (the id must not be in the table). `hashOf` gives the hash of any
    /// slot in the table, for a rebuild.
    mutating func insert(_ slot: Int32, hash: UInt64, hashOf: (Int32) -> UInt64) {
        if (count + tombstones + 1) * 4 > buckets.count * 3 {
            rebuild(size: (count + 1) * 2 > buckets.count ? buckets.count * 2 : buckets.count, hashOf: hashOf)
        }
        var bucket = Int(truncatingIfNeeded: hash) & mask
        while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
        if buckets[bucket] == Self.tombstone { tombstones -= 1 }
        buckets[bucket] = slot
        count += 1
    }

    /// Removes `slot`, filed under `hash`; false when it is not there.
    @discardableResult
    mutating func remove(_ slot: Int32, hash: UInt64) -> Bool {
        var bucket = Int(truncatingIfNeeded: hash) & mask
        while true {
            let found = buckets[bucket]
            if found == Self.empty { return false }
            if found == slot {
                // A bucket followed by an empty one can become empty itself: no probe goes past it.
                if buckets[(bucket + 1) & mask] == Self.empty {
                    buckets[bucket] = Self.empty
                } else {
                    buckets[bucket] = Self.tombstone
                    tombstones += 1
                }
                count -= 1
                return true
            }
            bucket = (bucket + 1) & mask
        }
    }

    private mutating func rebuild(size: Int, hashOf: (Int32) -> UInt64) {
        let old = buckets
        buckets = [Int32](repeating: Self.empty, count: size)
        tombstones = 0
        let mask = size - 1
        for slot in old where slot >= 0 {
            var bucket = Int(truncatingIfNeeded: hashOf(slot)) & mask
            while buckets[bucket] != Self.empty { bucket = (bucket + 1) & mask }
            buckets[bucket] = slot
        }
    }
}
