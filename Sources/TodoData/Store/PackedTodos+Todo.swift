/// `PackedTodos` read back as `Todo`, one to-do at a time, with its strings made on the
/// spot: for code that wants strings (tests, tools). The response path writes JSON from the
/// packed bytes instead (`TodoListViewModel`).
extension PackedTodos: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Todo {
        withEntries { entries, bytes in Todo(entries[position], in: bytes) }
    }
}

extension Todo {
    /// The to-do of `entry`, whose bytes are in `bytes`.
    init(_ entry: TodoRecord, in bytes: UnsafeBufferPointer<UInt8>) {
        self.init(
            id: PackedTodos.withIDText(entry, in: bytes) { String(decoding: $0, as: UTF8.self) },
            title: String(decoding: PackedTodos.title(entry, in: bytes), as: UTF8.self), completed: entry.completed,
            order: entry.orderValue, dueDate: entry.dueDate, createdAt: Timestamp(millisecondsSinceEpoch: entry.createdAt),
            updatedAt: Timestamp(millisecondsSinceEpoch: entry.updatedAt), revision: entry.revision)
    }
}
