/// Reading the store's to-dos out as `PackedTodos`: the records' values copied, a compact
/// title's bytes copied from `titleBytes` (whether it needs a JSON escape was settled when it was
/// stored), ids left as their 16 bytes. No string is made for a to-do stored in compact form.
extension TodoSlots {
    /// The to-dos in `page` (live slots), in its order.
    func packed(_ page: some Collection<Int32>) -> PackedTodos {
        var byteCount = 0
        for slot in page {
            let record = self[slot]
            byteCount += record.isCompactTitle ? Int(record.titleLength) : sideTitles[slot]!.title.utf8.count
            if record.flags.contains(.otherID) { byteCount += otherIDs[slot]!.utf8.count }
        }
        var packed = PackedTodos(capacity: page.count, byteCapacity: byteCount)
        titleBytes.withUnsafeBufferPointer { arena in
            for slot in page { append(slot, to: &packed, arena: arena) }
        }
        return packed
    }

    private func append(_ slot: Int32, to packed: inout PackedTodos, arena: UnsafeBufferPointer<UInt8>) {
        let record = self[slot]
        let order = record.hasOrder ? record.order : nil
        let dueDays = record.hasDueDate ? record.dueDays : nil
        let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        if record.isCompactTitle && !record.flags.contains(.otherID) {
            let start = Int(record.titleOffset)
            packed.append(
                uuid: record.id, otherID: none,
                title: UnsafeBufferPointer(rebasing: arena[start..<(start + Int(record.titleLength))]),
                plainTitle: record.flags.contains(.plainJSON), completed: record.completed, order: order,
                dueDays: dueDays, createdAt: record.createdAt, updatedAt: record.updatedAt, revision: record.revision)
            return
        }
        // A title that is not printable ASCII, or an id that is not a UUID: from their strings.
        var title = record.isCompactTitle ? "" : sideTitles[slot]!.title
        var other = record.flags.contains(.otherID) ? otherIDs[slot]! : ""
        title.withUTF8 { side in
            other.withUTF8 { otherBytes in
                let titleBytes: UnsafeBufferPointer<UInt8>
                if record.isCompactTitle {
                    let start = Int(record.titleOffset)
                    titleBytes = UnsafeBufferPointer(rebasing: arena[start..<(start + Int(record.titleLength))])
                } else {
                    titleBytes = side
                }
                packed.append(
                    uuid: record.flags.contains(.otherID) ? nil : record.id, otherID: otherBytes, title: titleBytes,
                    plainTitle: record.isCompactTitle ? record.flags.contains(.plainJSON) : nil,
                    completed: record.completed, order: order, dueDays: dueDays, createdAt: record.createdAt,
                    updatedAt: record.updatedAt, revision: record.revision)
            }
        }
    }
}
