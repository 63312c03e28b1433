/// A change log's retained changes in compact form (issue 38, item 3): one 24-byte slot per change
/// (its position, and where its record starts) in a ring, and the records (`RecordedChange`; a
/// store's, `ChangeRecord`: a creation with a UUID and a 30-byte title is 55 bytes) back to back
/// in a ring of bytes. Changes go in at the end and leave from the front; a change is made a
/// `LoggedChange` again only when a reader asks for it (`Excerpt`). Kept as `StoreChange`s,
/// 10,000 retained changes of a store cost ~7.6 MB (a `Todo` and its strings each, and an array
/// with room for twice the window).
///
/// The rings grow as changes come: the slots by doubling up to `slotLimit` (more only while more
/// are held), the bytes to what the slots' room holds of records the size of those held so far,
/// and an eighth more (at least an eighth more than they had). A full window of 10,000 changes
/// thus holds 10,000 slots and its records' bytes and an eighth, after about as many resizes as
/// the slots had. Both shrink to twice what they hold once that is under a quarter of their room,
/// so that a log of a few changes (an owner's, thinned by the shared budget) holds little, and an
/// emptied one nothing.
struct PackedChanges<Kind: RecordedChange> {
    private struct Slot: BitwiseCopyable {
        var major: UInt64
        var minor: UInt64
        /// Where its record starts: bytes appended to `records` before it, since the rings were
        /// last emptied.
        var offset: UInt64
    }

    private var slots = RingBuffer<Slot>()
    private var records = RingBuffer<UInt8>()
    /// The offset of `records`' first byte.
    private var recordsStart: UInt64 = 0
    /// Most slots growing makes room for (the log's capacity); more only while it holds more.
    let slotLimit: Int
    /// Least room for records once there are any: the slack of a log of one change.
    static var smallestRecordRoom: Int { 64 }

    init(slotLimit: Int) {
        self.slotLimit = max(1, slotLimit)
    }

    var count: Int { slots.count }

    /// Slots it has room for (for tests).
    var slotCapacity: Int { slots.capacity }

    /// The memory its rings hold: slots and record bytes, used or not.
    var heldBytes: Int { slots.capacity * MemoryLayout<Slot>.stride + records.capacity }

    /// The position of the change at `index` (`0..<count`, oldest first).
    func position(at index: Int) -> ChangePosition {
        let slot = slots[index]
        return ChangePosition(major: slot.major, minor: slot.minor)
    }

    /// The index of the first change after `position` (`count` when none is). Readers are mostly
    /// at or near the newest change (a live feed's cursor): steps back from the end, doubling, to a
    /// change at or before `position`, then bisects what lies between (3 looks for a reader one
    /// change behind, where a bisection of 10,000 takes 14).
    func firstIndex(after position: ChangePosition) -> Int {
        // Every index from `high` on is after `position`; every one below `low` is not.
        var low = 0, high = count
        var step = 1
        while high > 0 {
            let probe = max(high - step, 0)
            if self.position(at: probe) <= position {
                low = probe + 1
                break
            }
            high = probe
            step *= 2
        }
        while low < high {
            let middle = (low + high) / 2
            if self.position(at: middle) <= position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Appends the change of `kind` at `position` (after every change held: the log keeps them in
    /// order).
    mutating func append(position: ChangePosition, kind: Kind) {
        kind.withRecord { record in
            if slots.count == slots.capacity {
                let doubled = min(max(slots.capacity * 2, 1), slotLimit)
                slots.resize(to: max(doubled, slots.count + 1))
            }
            let needed = records.count + record.count
            if needed > records.capacity {
                let projected = needed * slots.capacity / (slots.count + 1)
                records.resize(to: max(projected + projected / 8, records.capacity + records.capacity / 8, Self.smallestRecordRoom))
            }
            slots.append(Slot(major: position.major, minor: position.minor, offset: recordsStart + UInt64(records.count)))
            records.append(contentsOf: record)
        }
    }

    /// Lets the oldest change go (its room is kept: `trim` gives back what is no longer needed).
    mutating func removeFirst() {
        let length = Int(recordEnd(0) - slots[0].offset)
        slots.removeFirst(1)
        records.removeFirst(length)
        recordsStart += UInt64(length)
    }

    /// Gives back room that is no longer needed: all of it once no change is held, and half of a
    /// ring that holds less than a quarter of its room (amortized O(1): shrinking follows at least
    /// as many removals as the ring then holds).
    mutating func trim() {
        if slots.count == 0 {
            removeAll()
            return
        }
        if slots.count * 4 < slots.capacity { slots.resize(to: slots.count * 2) }
        if records.capacity > Self.smallestRecordRoom, records.count * 4 < records.capacity {
            records.resize(to: max(records.count * 2, Self.smallestRecordRoom))
        }
    }

    /// Lets every change go, and the rings' room.
    mutating func removeAll() {
        slots.removeFirst(slots.count)
        slots.resize(to: 0)
        records.removeFirst(records.count)
        records.resize(to: 0)
        recordsStart = 0
    }

    /// Where the record of the change at `index` ends.
    private func recordEnd(_ index: Int) -> UInt64 {
        index + 1 < slots.count ? slots[index + 1].offset : recordsStart + UInt64(records.count)
    }

    /// Copies the change at `index` to the end of `excerpt`.
    func copy(_ index: Int, to excerpt: inout Excerpt) {
        let slot = slots[index]
        let start = Int(slot.offset - recordsStart)
        let length = Int(recordEnd(index) - slot.offset)
        records.withSegments(from: start, count: length) { first, second in
            excerpt.bytes.append(contentsOf: first)
            excerpt.bytes.append(contentsOf: second)
        }
        excerpt.entries.append(Excerpt.Entry(position: position(at: index), end: excerpt.bytes.count))
    }

    /// Some changes copied out of the log (under its lock, a few bytes each), to be made
    /// `LoggedChange`s after (outside it).
    struct Excerpt {
        struct Entry {
            var position: ChangePosition
            /// Where its record ends in `bytes` (the previous one's end is where it starts).
            var end: Int
        }

        fileprivate(set) var entries: [Entry] = []
        fileprivate(set) var bytes: [UInt8] = []
        /// The log's newest change as it was appended, after the entries: taken whole rather than
        /// copied as a record and decoded again (what a live reader reads).
        var newest: LoggedChange<Kind>?

        var count: Int { entries.count + (newest == nil ? 0 : 1) }

        /// The changes, in order, as they were appended.
        func changes() -> [LoggedChange<Kind>] {
            var changes = bytes.withUnsafeBufferPointer { bytes in
                var start = 0
                return entries.map { entry in
                    defer { start = entry.end }
                    return LoggedChange(
                        position: entry.position, kind: Kind(record: UnsafeBufferPointer(rebasing: bytes[start..<entry.end])))
                }
            }
            if let newest { changes.append(newest) }
            return changes
        }
    }
}
