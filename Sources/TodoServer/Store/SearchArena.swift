/// The prepared lowercase titles (`TitleKey.folded`) of every to-do, back to back in one growing
/// byte buffer, so that `q=` reads them sequentially instead of visiting a string per to-do in
/// random memory order. Each to-do has one slot (its id, its key, where its bytes are, whether it
/// is completed); a change of title appends the new bytes and leaves the old ones as garbage, a
/// removal leaves its slot dead. When half of the bytes or half of the slots are garbage (and there
/// are at least `compactionFloor` slots), the live ones are copied into a new buffer in slot order:
/// amortized O(1) per change, and never more than twice the live size.
struct SearchArena {
    struct Slot {
        let id: String
        /// The to-do's key, for titles that are not plain ASCII (confirmed character by character).
        let key: TitleKey
        var offset: Int
        var length: Int
        var completed: Bool
        var isLive: Bool
    }

    private(set) var bytes: [UInt8] = []
    private(set) var slots: [Slot] = []
    /// Each live to-do's slot.
    private(set) var slotOf: [String: Int] = [:]
    private(set) var garbageBytes = 0
    private(set) var deadSlots = 0
    /// No compaction below this many slots (small stores are not worth it).
    let compactionFloor: Int

    init(compactionFloor: Int = 1024) {
        self.compactionFloor = compactionFloor
    }

    /// The arena of `todos`, in one pass.
    init(_ todos: some Sequence<Todo>, compactionFloor: Int = 1024) {
        self.init(compactionFloor: compactionFloor)
        for todo in todos { insert(todo) }
    }

    var liveCount: Int { slots.count - deadSlots }

    mutating func insert(_ todo: Todo) {
        if slotOf[todo.id] != nil { return replace(todo, with: todo) }
        slotOf[todo.id] = slots.count
        slots.append(append(todo))
    }

    mutating func remove(_ todo: Todo) {
        guard let slot = slotOf.removeValue(forKey: todo.id) else { return }
        kill(slot)
        compactIfNeeded()
    }

    /// Files a changed to-do: in place when the prepared title is the same, else in a new slot.
    mutating func replace(_ old: Todo, with new: Todo) {
        guard let slot = slotOf[new.id] else { return insert(new) }
        if slots[slot].key == new.titleKey {
            slots[slot].completed = new.completed
            return
        }
        kill(slot)
        slotOf[new.id] = slots.count
        slots.append(append(new))
        compactIfNeeded()
    }

    private mutating func append(_ todo: Todo) -> Slot {
        let offset = bytes.count
        bytes.append(contentsOf: todo.titleKey.folded.utf8)
        return Slot(
            id: todo.id, key: todo.titleKey, offset: offset, length: bytes.count - offset, completed: todo.completed,
            isLive: true)
    }

    private mutating func kill(_ slot: Int) {
        slots[slot].isLive = false
        deadSlots += 1
        garbageBytes += slots[slot].length
    }

    private mutating func compactIfNeeded() {
        guard slots.count >= compactionFloor, garbageBytes * 2 > bytes.count || deadSlots * 2 > slots.count else { return }
        compact()
    }

    /// Copies the live slots and their bytes, in slot order, into buffers of their size.
    mutating func compact() {
        var newBytes: [UInt8] = []
        newBytes.reserveCapacity(bytes.count - garbageBytes)
        var newSlots: [Slot] = []
        newSlots.reserveCapacity(liveCount)
        var newSlotOf: [String: Int] = [:]
        newSlotOf.reserveCapacity(liveCount)
        for var slot in slots where slot.isLive {
            let offset = newBytes.count
            newBytes.append(contentsOf: bytes[slot.offset..<(slot.offset + slot.length)])
            slot.offset = offset
            newSlotOf[slot.id] = newSlots.count
            newSlots.append(slot)
        }
        bytes = newBytes
        slots = newSlots
        slotOf = newSlotOf
        garbageBytes = 0
        deadSlots = 0
    }

    /// The live slots, ascending, that pass `completed=` and whose title contains `search` (as
    /// `TitleKey.contains` decides): one sequential byte search (`ByteSearch`) per title for a
    /// printable ASCII needle, confirmed character by character only for a title that is not plain
    /// ASCII; any other needle cannot match a plain ASCII title and is tried on the others only.
    func matches(_ search: TitleSearch, completed: Bool?) -> [Int] {
        var found: [Int] = []
        let needle = Array(search.folded.utf8)
        let isASCII = search.shifts != nil
        bytes.withUnsafeBytes { text in
            needle.withUnsafeBytes { needle in
                slots.withUnsafeBufferPointer { slots in
                    for index in slots.indices {
                        guard slots[index].isLive else { continue }
                        if let completed, slots[index].completed != completed { continue }
                        let start = slots[index].offset
                        let matches =
                            isASCII
                            ? ByteSearch.contains(UnsafeRawBufferPointer(rebasing: text[start..<(start + slots[index].length)]), needle)
                                && (slots[index].key.isPlainASCII || slots[index].key.contains(search))
                            : !slots[index].key.isPlainASCII && slots[index].key.contains(search)
                        if matches { found.append(index) }
                    }
                }
            }
        }
        return found
    }
}
