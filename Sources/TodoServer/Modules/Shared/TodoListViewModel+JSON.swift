import TodoData

/// Writing a page's JSON from its packed to-dos through `TodoJSON`, as `TodoViewModel` writes one
/// to-do, without a string per to-do. When the base URL, every id and every title need no escape
/// (known when the to-dos were stored or the page filled: no scan here) and every date has a
/// four-digit year, the whole array is written in one reservation through a cursor, a UUID id as
/// hex from its 16 bytes; otherwise to-do by to-do, member by member, escaping as needed.
extension TodoListViewModel: JSONWritable {
    /// The most the array can take in the one-step form (`TodoJSON.maximumBytes`, a comma, a UUID
    /// id at most 36 bytes twice and a title, or an other id and a title in `bytes`).
    public var jsonSizeHint: Int {
        2 + items.count * (TodoJSON.fixedBytes + 1 + 72 + 1 + baseURL.utf8.count) + 2 * items.withEntries { _, bytes in bytes.count }
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
        to writer: inout JSONWriter, _ entries: UnsafeBufferPointer<TodoRecord>, _ bytes: UnsafeBufferPointer<UInt8>,
        base: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard JSONEscape.isClean(base) else { return false }
        var maximum = 2
        for entry in entries {
            guard entry.flags.contains(.plainID), entry.flags.contains(.plainTitle),
                TodoJSON.fits(
                    createdAt: Timestamp(millisecondsSinceEpoch: entry.createdAt),
                    updatedAt: Timestamp(millisecondsSinceEpoch: entry.updatedAt), dueDate: entry.dueDate)
            else { return false }
            let id = entry.uuid == nil ? Int(entry.id.low) : 36
            maximum += 1 + TodoJSON.maximumBytes(id: id, title: Int(entry.titleLength), base: base.count)
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

    /// One to-do whose id and title need no escape.
    @inline(__always)
    private static func writeObject(
        _ entry: TodoRecord, _ bytes: UnsafeBufferPointer<UInt8>, base: UnsafeBufferPointer<UInt8>,
        to cursor: inout JSONCursor
    ) {
        TodoJSON.object(
            completed: entry.completed, createdAt: Timestamp(millisecondsSinceEpoch: entry.createdAt), dueDate: entry.dueDate,
            order: entry.orderValue, title: PackedTodos.title(entry, in: bytes),
            updatedAt: Timestamp(millisecondsSinceEpoch: entry.updatedAt), base: base, to: &cursor
        ) { cursor in
            if let uuid = entry.uuid { return cursor.quoted(uuid: uuid) }
            let id = PackedTodos.otherID(entry, in: bytes)
            cursor.quoted(clean: id)
            return id
        }
    }

    /// The general path: any id, any title, any year.
    private static func writeMembers(
        _ entry: TodoRecord, _ bytes: UnsafeBufferPointer<UInt8>, base: UnsafeBufferPointer<UInt8>,
        to writer: inout JSONWriter
    ) {
        PackedTodos.withIDText(entry, in: bytes) { id in
            TodoJSON.members(
                completed: entry.completed, createdAt: Timestamp(millisecondsSinceEpoch: entry.createdAt), dueDate: entry.dueDate,
                id: id, order: entry.orderValue, title: PackedTodos.title(entry, in: bytes),
                updatedAt: Timestamp(millisecondsSinceEpoch: entry.updatedAt), base: base, to: &writer)
        }
    }
}
