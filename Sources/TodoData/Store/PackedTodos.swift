/// To-dos as a read-only run of plain values in compact form: what a list crosses the seams as.
///
/// Per to-do one fixed-size entry, the record the in-memory store keeps (`TodoRecord`: the id's 16
/// bytes, dates, order, due day, revision, flags); the titles, and any id that is not a lower-case
/// UUID, back to back in one byte buffer shared by the whole run. A page of 20 is two allocations,
/// not two strings per to-do. The store fills it (the in-memory store from its records, the others
/// from their rows or to-dos), the interactor hands it on, the presenter wraps it in a view model
/// (`TodoListViewModel`), and the view writes JSON from its bytes: ids as hex from their 16 bytes,
/// titles known to need no escape copied without a scan. Nothing outside this file can change a
/// value once filled; `PackedTodos+Todo.swift` reads it back as `Todo` for the code that wants
/// strings.
public struct PackedTodos: Sendable {
    /// Per to-do its record, whose title, and id if not a UUID, are in `bytes`, and whose
    /// `plainTitle` and `plainID` are settled.
    private(set) var entries: [TodoRecord] = []
    private(set) var bytes: [UInt8] = []

    /// No to-dos.
    public init() {}

    /// Room for `count` to-dos and `byteCount` bytes of titles and ids that are not UUIDs.
    init(capacity count: Int, byteCapacity byteCount: Int) {
        entries.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    /// The given to-dos, in their order.
    public init(_ todos: some Collection<Todo>) {
        self.init(capacity: todos.count, byteCapacity: todos.reduce(0) { $0 + $1.title.utf8.count })
        for todo in todos { append(todo) }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    // MARK: filling (the stores)

    /// Appends `record` with its title's bytes, and those of an id that is not a UUID (`otherID`),
    /// copied into `bytes`. `titleChecked` says whether the record's `plainTitle` is settled
    /// already (a compact title's, when it was stored); if not, the title is checked here, as an
    /// other id always is.
    mutating func append(
        _ record: TodoRecord, title: UnsafeBufferPointer<UInt8>, otherID: UnsafeBufferPointer<UInt8>, titleChecked: Bool
    ) {
        var record = record
        if !titleChecked && JSONEscape.isClean(title) { record.flags.insert(.plainTitle) }
        if record.flags.contains(.otherID) {
            if JSONEscape.isClean(otherID) { record.flags.insert(.plainID) }
            record.id = TodoID16(high: UInt64(bytes.count), low: UInt64(otherID.count))
            bytes.append(contentsOf: otherID)
        }
        record.titleOffset = UInt32(truncatingIfNeeded: bytes.count)
        record.titleLength = UInt32(truncatingIfNeeded: title.count)
        bytes.append(contentsOf: title)
        entries.append(record)
    }

    /// Appends a to-do given as strings and values (a database row, a `Todo`).
    mutating func append(
        id: String, title: String, completed: Bool, order: Int?, dueDate: CalendarDay?, createdAt: Timestamp,
        updatedAt: Timestamp, revision: UInt64
    ) {
        var record = TodoRecord(
            completed: completed, order: order, dueDate: dueDate, createdAt: createdAt, updatedAt: updatedAt,
            revision: revision)
        let uuid = TodoID16(id)
        record.setID(uuid: uuid)
        var id = id, title = title
        id.withUTF8 { idBytes in
            title.withUTF8 { titleBytes in
                append(
                    record, title: titleBytes, otherID: uuid == nil ? idBytes : UnsafeBufferPointer(start: nil, count: 0),
                    titleChecked: false)
            }
        }
    }

    mutating func append(_ todo: Todo) {
        append(
            id: todo.id, title: todo.title, completed: todo.completed, order: todo.order, dueDate: todo.dueDate,
            createdAt: todo.createdAt, updatedAt: todo.updatedAt, revision: todo.revision)
    }

    // MARK: reading (the module's roles)

    /// Runs `body` on the entries and the byte buffer they point into (valid inside `body` only).
    package func withEntries<R>(_ body: (UnsafeBufferPointer<TodoRecord>, UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try entries.withUnsafeBufferPointer { entries in
            try bytes.withUnsafeBufferPointer { bytes in try body(entries, bytes) }
        }
    }

    /// The title's bytes of `entry`, in `bytes` (the buffer `withEntries` gave).
    @inlinable
    package static func title(_ entry: TodoRecord, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        entry.title(in: bytes)
    }

    /// The bytes of an id that is not a UUID (`entry.uuid == nil`), in `bytes`.
    @inlinable
    package static func otherID(_ entry: TodoRecord, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(entry.id.high)..<(Int(entry.id.high) + Int(entry.id.low))])
    }

    /// Runs `body` on the id's text (36 bytes written on the stack for a UUID).
    @inlinable
    package static func withIDText<R>(
        _ entry: TodoRecord, in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        guard let uuid = entry.uuid else { return body(otherID(entry, in: bytes)) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            uuid.writeText(to: buffer.baseAddress!)
            return body(UnsafeBufferPointer(buffer))
        }
    }
}

extension PackedTodos: Equatable {
    /// The same to-dos with the same values, in the same order (however the bytes were laid out).
    public static func == (a: PackedTodos, b: PackedTodos) -> Bool {
        guard a.count == b.count else { return false }
        return a.withEntries { x, xBytes in
            b.withEntries { y, yBytes in
                x.indices.allSatisfy { index in
                    let p = x[index], q = y[index]
                    guard p.createdAt == q.createdAt, p.updatedAt == q.updatedAt, p.revision == q.revision,
                        p.orderValue == q.orderValue, p.dueDate == q.dueDate, p.completed == q.completed,
                        title(p, in: xBytes).elementsEqual(title(q, in: yBytes))
                    else { return false }
                    return withIDText(p, in: xBytes) { first in withIDText(q, in: yBytes) { first.elementsEqual($0) } }
                }
            }
        }
    }
}
