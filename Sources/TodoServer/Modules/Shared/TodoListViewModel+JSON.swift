/// Writing a page's JSON from its snapshots: byte for byte what an array of `TodoViewModel`
/// writes, without a string per to-do. When the base URL, every id and every title need no escape
/// (known when the to-dos were stored or the page filled: no scan here) and every date has a
/// four-digit year, the whole array is written in one reservation through a cursor, a UUID id as
/// hex from its 16 bytes; otherwise to-do by to-do, member by member, escaping as needed.
extension TodoListViewModel: JSONWritable {
    /// The most the array can take in the one-step form: the members' names, punctuation, times
    /// and nulls take under 200 bytes a to-do; the id is written twice.
    public var jsonSizeHint: Int {
        2 + items.count * (201 + 72 + 1 + baseURL.utf8.count) + 2 * items.withEntries { _, bytes in bytes.count }
    }

    public func write(to writer: inout JSONWriter) {
        items.withEntries { entries, bytes in
            let written =
                baseURL.utf8.withContiguousStorageIfAvailable { base in
                    writeInOneStep(to: &writer, entries, bytes, base: base)
                } ?? false
            if written { return }
            var base = baseURL
            base.withUTF8 { base in
                writer.beginArray()
                for entry in entries { Self.writeMembers(entry, bytes, base: base, to: &writer) }
                writer.endArray()
            }
        }
    }

    private func writeInOneStep(
        to writer: inout JSONWriter, _ entries: UnsafeBufferPointer<TodoSnapshots.Entry>, _ bytes: UnsafeBufferPointer<UInt8>,
        base: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard JSONWriter.isClean(base) else { return false }
        var maximum = 2
        for entry in entries {
            guard entry.flags.contains(.plainID), entry.flags.contains(.plainTitle),
                JSONCursor.fits(Timestamp(millisecondsSinceEpoch: entry.createdAt)),
                JSONCursor.fits(Timestamp(millisecondsSinceEpoch: entry.updatedAt)), JSONCursor.fits(entry.dueDate)
            else { return false }
            maximum += 201 + base.count + Int(entry.titleLength) + 2 * (entry.uuid == nil ? Int(entry.id.low) : 36)
        }
        writer.withCursor(maximum: maximum) { cursor in
            cursor.raw("[")
            for index in entries.indices {
                if index > 0 { cursor.raw(",") }
                Self.writeObject(entries[index], bytes, base: base, to: &cursor)
            }
            cursor.raw("]")
        }
        return true
    }

    /// One to-do whose id and title need no escape, members in name order.
    @inline(__always)
    private static func writeObject(
        _ entry: TodoSnapshots.Entry, _ bytes: UnsafeBufferPointer<UInt8>, base: UnsafeBufferPointer<UInt8>,
        to cursor: inout JSONCursor
    ) {
        cursor.raw(#"{"completed":"#)
        cursor.bool(entry.completed)
        cursor.raw(#","createdAt":"#)
        cursor.timestamp(Timestamp(millisecondsSinceEpoch: entry.createdAt))
        cursor.raw(#","dueDate":"#)
        cursor.day(entry.dueDate)
        cursor.raw(#","id":"#)
        let id: UnsafeBufferPointer<UInt8>
        if let uuid = entry.uuid {
            id = cursor.quoted(uuid: uuid)
        } else {
            id = TodoSnapshots.otherID(entry, in: bytes)
            cursor.quoted(clean: id)
        }
        cursor.raw(#","order":"#)
        cursor.int(entry.orderValue)
        cursor.raw(#","title":"#)
        cursor.quoted(clean: TodoSnapshots.title(entry, in: bytes))
        cursor.raw(#","updatedAt":"#)
        cursor.timestamp(Timestamp(millisecondsSinceEpoch: entry.updatedAt))
        cursor.raw(#","url":""#)
        cursor.unquoted(clean: base)
        cursor.raw("/todos/")
        cursor.unquoted(clean: id)
        cursor.raw(#""}"#)
    }

    /// The general path: any id, any title, any year.
    private static func writeMembers(
        _ entry: TodoSnapshots.Entry, _ bytes: UnsafeBufferPointer<UInt8>, base: UnsafeBufferPointer<UInt8>,
        to writer: inout JSONWriter
    ) {
        TodoSnapshots.withIDText(entry, in: bytes) { id in
            writer.beginObject()
            writer.key("completed")
            writer.bool(entry.completed)
            writer.key("createdAt")
            writer.timestamp(Timestamp(millisecondsSinceEpoch: entry.createdAt))
            writer.key("dueDate")
            if let dueDate = entry.dueDate { writer.day(dueDate) } else { writer.null() }
            writer.key("id")
            writer.string(utf8: id)
            writer.key("order")
            if let order = entry.orderValue { writer.int(order) } else { writer.null() }
            writer.key("title")
            writer.string(utf8: TodoSnapshots.title(entry, in: bytes))
            writer.key("updatedAt")
            writer.timestamp(Timestamp(millisecondsSinceEpoch: entry.updatedAt))
            writer.key("url")
            writer.string(utf8: base, "/todos/", utf8: id)
            writer.endObject()
        }
    }
}
