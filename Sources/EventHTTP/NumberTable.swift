/// A key that is a number the server hands out in increasing order (a connection's, a request's).
protocol TableNumber: Equatable {
    var rawValue: UInt { get }
}

/// A dictionary from the connection state machine's numbers to their records, found by the number
/// itself: no hashing. `Dictionary` hashes every key with SipHash; the machine looks up its
/// connection and request records ~18 times a request, and callgrind counted 36,013 lookups for
/// 2,000 POSTs at ~215 instructions each (hash seed, combine, finalize, probe): 3,900 of a POST's
/// 62,000 instructions (docs/performance.md). Numbers come in increasing order and few are live at
/// once, so the number's low bits are a good slot, and linear probing finds a clash's neighbour.
///
/// The same surface as the `Dictionary` it replaces, so that the machine's code reads the same:
/// `index(forKey:)` then `values[index]` to read or change a record in place, `keys[index]`,
/// `subscript(key)`, `removeValue(forKey:)`. Records are dense in `values` (iterating is a walk of an
/// array); removing one moves the last into its place, so an index is good until the next
/// insertion or removal, as a dictionary's. `NumberTableTests` checks it against `Dictionary`.
struct NumberTable<Key: TableNumber, Value> {
    private(set) var keys: [Key] = []
    /// The records, `keys[i]`'s at `i`. Change elements in place; insert and remove through the
    /// table only.
    var values: [Value] = []
    /// Open addressing over a power of two: each slot 0 (empty) or a position in `keys` plus one.
    private var slots: [Int32] = Array(repeating: 0, count: 16)

    init() {}

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    /// Where `key`'s record is in `values`, if it has one.
    func index(forKey key: Key) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.rawValue) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return nil }
            if keys[entry - 1] == key { return entry - 1 }
            slot = (slot + 1) & mask
        }
    }

    subscript(key: Key) -> Value? {
        get { index(forKey: key).map { values[$0] } }
        set {
            if let newValue {
                if let index = index(forKey: key) {
                    values[index] = newValue
                } else {
                    insert(key, newValue)
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Removes `key`'s record and answers it (nil when it had none).
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = slot(of: key) else { return nil }
        let index = Int(slots[slot]) - 1
        vacate(slot)
        let last = keys.count - 1
        if index != last {
            // The last record moves into the hole: its slot now points there.
            let moved = self.slot(of: keys[last])!
            slots[moved] = Int32(index + 1)
            keys.swapAt(index, last)
            values.swapAt(index, last)
        }
        keys.removeLast()
        return values.removeLast()
    }

    /// Every record for which `keep` holds stays, the others go.
    func filter(_ keep: ((key: Key, value: Value)) -> Bool) -> NumberTable {
        var kept = NumberTable()
        for index in keys.indices where keep((keys[index], values[index])) { kept.insert(keys[index], values[index]) }
        return kept
    }

    private mutating func insert(_ key: Key, _ value: Value) {
        if (keys.count + 1) * 2 > slots.count { grow() }
        keys.append(key)
        values.append(value)
        place(key, at: keys.count)
    }

    private mutating func place(_ key: Key, at entry: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.rawValue) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(entry)
    }

    private func slot(of key: Key) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key.rawValue) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return nil }
            if keys[entry - 1] == key { return slot }
            slot = (slot + 1) & mask
        }
    }

    /// Empties `slot`, shifting back the entries after it that probing would no longer reach
    /// (deletion without tombstones, for linear probing).
    private mutating func vacate(_ slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = (slot + 1) & mask
        while slots[next] != 0 {
            let home = Int(truncatingIfNeeded: keys[Int(slots[next]) - 1].rawValue) & mask
            // The entry at `next` may fill the hole when its home is not in (hole, next], cyclically.
            let reachable = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !reachable {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = 0
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        for (position, key) in keys.enumerated() { place(key, at: position + 1) }
    }
}

extension NumberTable: Sendable where Key: Sendable, Value: Sendable {}
extension NumberTable: Equatable where Value: Equatable {
    /// The same records under the same keys, whatever their order.
    static func == (lhs: NumberTable, rhs: NumberTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in lhs.keys.indices {
            guard let other = rhs.index(forKey: lhs.keys[index]), rhs.values[other] == lhs.values[index] else { return false }
        }
        return true
    }
}

extension NumberTable: Sequence {
    /// Each record with its key, in no promised order (as a dictionary's).
    struct Iterator: IteratorProtocol {
        let table: NumberTable
        var position = 0

        mutating func next() -> (key: Key, value: Value)? {
            guard position < table.keys.count else { return nil }
            defer { position += 1 }
            return (table.keys[position], table.values[position])
        }
    }

    func makeIterator() -> Iterator { Iterator(table: self) }
    var underestimatedCount: Int { keys.count }
}
