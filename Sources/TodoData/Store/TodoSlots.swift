/// The in-memory store's to-dos: fixed-size records (`TodoRecord`) in chunks of `chunkSize`
/// slots (growing one chunk at a time, never copying the others; the first grows with a small
/// store, `GentleGrowth`), found by id through a
/// `SlotTable`. A removed to-do's slot is reused by the next insert. The indexes hold slot
/// numbers; the printable ASCII titles are stored once, back to back, in `titleBytes`
/// (`TodoSlots+Titles`).
struct TodoSlots {
    static let chunkShift = 12
    static let chunkSize = 1 << chunkShift

    private(set) var chunks: [[TodoRecord]] = []
    /// Slots handed out so far (live or free).
    private(set) var slotCount = 0
    /// Free slots, the last freed last.
    private(set) var free: [Int32] = []
    private(set) var table = SlotTable()
    /// The ids that are not lower-case UUIDs, by slot.
    private(set) var otherIDs: [Int32: String] = [:]
    /// The titles that are not printable ASCII, by slot, with their keys.
    var sideTitles: [Int32: (title: String, key: TitleKey)] = [:]
    /// The printable ASCII titles as given, back to back; removed and replaced ones stay as
    /// garbage until a compaction (`TodoSlots+Titles`).
    var titleBytes: [UInt8] = []
    var garbageBytes = 0
    /// No compaction of `titleBytes` below this many bytes.
    let compactionFloor: Int

    init(compactionFloor: Int = 1 << 16) {
        self.compactionFloor = compactionFloor
    }

    var liveCount: Int { table.count }

    subscript(slot: Int32) -> TodoRecord {
        get { chunks[Int(slot) >> Self.chunkShift][Int(slot) & (Self.chunkSize - 1)] }
        set { chunks[Int(slot) >> Self.chunkShift][Int(slot) & (Self.chunkSize - 1)] = newValue }
    }

    /// The slots handed out, live or not, in slot order.
    var allSlots: Range<Int32> { 0..<Int32(slotCount) }

    // MARK: ids

    private static func hash(of other: String) -> UInt64 {
        // FNV-1a, then the id mix: stable, and cheap for the short ids other than UUIDs.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in other.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return TodoID16(high: hash, low: hash >> 17).hash
    }

    private func hash(ofSlot slot: Int32) -> UInt64 {
        Self.hash(ofSlot: slot, chunks, otherIDs)
    }

    private static func hash(ofSlot slot: Int32, _ chunks: [[TodoRecord]], _ otherIDs: [Int32: String]) -> UInt64 {
        let record = chunks[Int(slot) >> chunkShift][Int(slot) & (chunkSize - 1)]
        return record.flags.contains(.otherID) ? hash(of: otherIDs[slot]!) : record.id.hash
    }

    /// The live slot of the to-do with `id`, or nil.
    func slot(of id: String) -> Int32? {
        if let id16 = TodoID16(id) {
            return table.find(hash: id16.hash) { slot in
                let record = self[slot]
                return record.id == id16 && !record.flags.contains(.otherID)
            }
        }
        return table.find(hash: Self.hash(of: id)) { slot in otherIDs[slot] == id }
    }

    /// The to-do's id string.
    @usableFromInline package func id(_ slot: Int32) -> String {
        let record = self[slot]
        return record.flags.contains(.otherID) ? otherIDs[slot]! : record.id.string
    }

    /// `<0`, `0`, `>0` as the id of `a` sorts before, is, or sorts after the id of `b` (as
    /// strings compare).
    func compareIDs(_ a: Int32, _ b: Int32) -> Int {
        let x = self[a]
        let y = self[b]
        if !x.flags.contains(.otherID) && !y.flags.contains(.otherID) {
            return x.id == y.id ? 0 : (x.id < y.id ? -1 : 1)
        }
        let first = id(a)
        let second = id(b)
        return first == second ? 0 : (first < second ? -1 : 1)
    }

    // MARK: changes

    /// Files a new to-do (its id is not in the store) in a free slot, and answers the slot.
    mutating func add(_ todo: Todo) -> Int32 {
        let slot: Int32
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = Int32(slotCount)
            let chunk = slotCount >> Self.chunkShift
            if chunk == chunks.count {
                var records: [TodoRecord] = []
                // Every chunk after the first is reserved whole (its unwritten room stays out of
                // the resident set). The first grows with the store (`GentleGrowth`) up to 16 KiB,
                // then takes its whole room: reserved whole at once, an owner's 100 to-dos sat in
                // 8 KiB of touched pages, not the 6.4 KB they fill.
                if chunk > 0 { records.reserveCapacity(Self.chunkSize) }
                chunks.append(records)
            }
            if chunk == 0 { chunks[0].reserveGently(whole: Self.chunkSize) }
            chunks[chunk].append(.vacant)
            slotCount += 1
        }
        var record = TodoRecord(fieldsOf: todo)
        let id16 = TodoID16(todo.id)
        record.setID(uuid: id16)
        if id16 == nil { otherIDs[slot] = todo.id }
        let hash = id16?.hash ?? Self.hash(of: todo.id)
        storeTitle(todo, in: &record, slot: slot)
        self[slot] = record
        let chunks = chunks
        let otherIDs = otherIDs
        table.insert(slot, hash: hash) { Self.hash(ofSlot: $0, chunks, otherIDs) }
        // New bytes can take the buffer past the floor with garbage left from below it.
        compactTitlesIfNeeded()
        return slot
    }

    /// Overwrites the to-do in `slot` with `todo` (same id): its title stays where it is when it
    /// did not change.
    mutating func overwrite(_ slot: Int32, with todo: Todo) {
        let old = self[slot]
        var record = TodoRecord(fieldsOf: todo)
        record.id = old.id
        record.flags.formUnion(old.flags.intersection([.otherID, .plainID]))
        if titleEquals(slot, todo.title) {
            record.titleOffset = old.titleOffset
            record.titleLength = old.titleLength
            record.flags.formUnion(old.flags.intersection([.compactTitle, .upperCase, .plainTitle]))
        } else {
            releaseTitle(slot)
            storeTitle(todo, in: &record, slot: slot)
        }
        self[slot] = record
        compactTitlesIfNeeded()
    }

    /// Removes the to-do in `slot`; the slot is free for the next insert.
    mutating func remove(_ slot: Int32) {
        let record = self[slot]
        table.remove(slot, hash: hash(ofSlot: slot))
        releaseTitle(slot)
        if record.flags.contains(.otherID) { otherIDs[slot] = nil }
        self[slot] = .vacant
        free.append(slot)
        compactTitlesIfNeeded()
    }

    // MARK: reading

    /// The to-do in `slot`, as the store answers it.
    func todo(_ slot: Int32) -> Todo {
        todo(slot, named: nil)
    }

    /// The to-do in `slot`, found by `slot(of: id)`: a UUID id is answered as the caller's string
    /// (the same bytes: only a lower-case UUID parses to 16 bytes), instead of a new one.
    func todo(_ slot: Int32, named id: String?) -> Todo {
        let record = self[slot]
        let (title, key) = titleAndKey(slot, record)
        return Todo(
            id: record.flags.contains(.otherID) ? otherIDs[slot]! : (id ?? record.id.string), title: title, titleKey: key,
            completed: record.completed, order: record.orderValue, dueDate: record.dueDate,
            createdAt: Timestamp(millisecondsSinceEpoch: record.createdAt),
            updatedAt: Timestamp(millisecondsSinceEpoch: record.updatedAt), revision: record.revision)
    }

    /// The live slots, in slot order.
    var liveSlots: some Sequence<Int32> { allSlots.lazy.filter { self[$0].isLive } }
}
