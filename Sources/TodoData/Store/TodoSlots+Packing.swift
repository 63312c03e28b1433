/// Reading the store's to-dos out as `PackedTodos`: the records copied as they are, a compact
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
        if record.isCompactTitle && !record.flags.contains(.otherID) {
            packed.append(
                record, title: record.title(in: arena), otherID: UnsafeBufferPointer(start: nil, count: 0), titleChecked: true)
            return
        }
        // A title that is not printable ASCII, or an id that is not a UUID: from their strings.
        var title = record.isCompactTitle ? "" : sideTitles[slot]!.title
        var other = record.flags.contains(.otherID) ? otherIDs[slot]! : ""
        title.withUTF8 { side in
            other.withUTF8 { otherBytes in
                packed.append(
                    record, title: record.isCompactTitle ? record.title(in: arena) : side, otherID: otherBytes,
                    titleChecked: record.isCompactTitle)
            }
        }
    }
}
