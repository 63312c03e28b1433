/// To-dos as a read-only run of plain values in compact form: what a list crosses the seams as.
///
/// Per to-do one fixed-size entry (the id's 16 bytes, dates, order, due day, revision, flags); the
/// titles, and any id that is not a lower-case UUID, back to back in one byte buffer shared by the
/// whole run. A page of 20 is two allocations, not two strings per to-do. The store fills it (the
/// in-memory store from its records, the others from their rows or to-dos), the interactor hands
/// it on, the presenter wraps it in a view model (`TodoListViewModel`), and the view writes JSON
/// from its bytes: ids as hex from their 16 bytes, titles known to need no escape copied without a
/// scan. Nothing outside this file can change a value once filled; `PackedTodos+Todo.swift`
/// reads it back as `Todo` for the code that wants strings.
public struct PackedTodos: Sendable {
    /// One to-do. Its id and title are in the run's `bytes` unless the id is a UUID (`id`).
    struct Entry: Sendable {
        /// A lower-case UUID id's bytes; for any other id (`otherID`), `high` is its offset in
        /// `bytes` and `low` its length.
        let id: TodoID16
        let createdAt: Int64
        let updatedAt: Int64
        let revision: UInt64
        /// 0 when unset (`hasOrder`).
        let order: Int
        let titleOffset: UInt32
        let titleLength: UInt32
        /// Days since 1970-01-01 (`hasDueDate`).
        let dueDays: Int32
        let flags: Flags

        var completed: Bool { flags.contains(.completed) }
        var orderValue: Int? { flags.contains(.hasOrder) ? order : nil }
        var dueDate: CalendarDay? { flags.contains(.hasDueDate) ? CalendarDay(daysSinceEpoch: Int(dueDays)) : nil }
        /// The 16 bytes of a lower-case UUID id, nil for any other id.
        var uuid: TodoID16? { flags.contains(.otherID) ? nil : id }
    }

    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        static let completed = Flags(rawValue: 1)
        static let hasOrder = Flags(rawValue: 2)
        static let hasDueDate = Flags(rawValue: 4)
        /// The id is not a lower-case UUID: its bytes are in `bytes`.
        static let otherID = Flags(rawValue: 8)
        /// The id's bytes need no JSON escape (a UUID's never do).
        static let plainID = Flags(rawValue: 16)
        /// The title's bytes need no JSON escape: known when the to-do was stored, or checked once
        /// when the run was filled.
        static let plainTitle = Flags(rawValue: 32)
    }

    private(set) var entries: [Entry] = []
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

    /// Appends one to-do's values. `uuid` is the id's 16 bytes when it is a lower-case UUID; else
    /// `otherID` holds its bytes. `plainTitle` says whether the title is known to need no JSON
    /// escape (nil: checked here).
    mutating func append(
        uuid: TodoID16?, otherID: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, plainTitle: Bool?,
        completed: Bool, order: Int?, dueDays: Int32?, createdAt: Int64, updatedAt: Int64, revision: UInt64
    ) {
        var flags: Flags = []
        if completed { flags.insert(.completed) }
        if order != nil { flags.insert(.hasOrder) }
        if dueDays != nil { flags.insert(.hasDueDate) }
        if plainTitle ?? JSONWriter.isClean(title) { flags.insert(.plainTitle) }
        let id: TodoID16
        if let uuid {
            id = uuid
            flags.insert(.plainID)
        } else {
            flags.insert(.otherID)
            if JSONWriter.isClean(otherID) { flags.insert(.plainID) }
            id = TodoID16(high: UInt64(bytes.count), low: UInt64(otherID.count))
            bytes.append(contentsOf: otherID)
        }
        let titleOffset = UInt32(truncatingIfNeeded: bytes.count)
        bytes.append(contentsOf: title)
        entries.append(
            Entry(
                id: id, createdAt: createdAt, updatedAt: updatedAt, revision: revision, order: order ?? 0,
                titleOffset: titleOffset, titleLength: UInt32(truncatingIfNeeded: title.count),
                dueDays: dueDays ?? 0, flags: flags))
    }

    /// Appends a to-do given as strings and values (a database row, a `Todo`).
    mutating func append(
        id: String, title: String, completed: Bool, order: Int?, dueDate: CalendarDay?, createdAt: Timestamp,
        updatedAt: Timestamp, revision: UInt64
    ) {
        var id = id, title = title
        let uuid = TodoID16(id)
        id.withUTF8 { idBytes in
            title.withUTF8 { titleBytes in
                append(
                    uuid: uuid, otherID: uuid == nil ? idBytes : UnsafeBufferPointer(start: nil, count: 0),
                    title: titleBytes, plainTitle: nil, completed: completed, order: order,
                    dueDays: dueDate.map { Int32(truncatingIfNeeded: $0.daysSinceEpoch) },
                    createdAt: createdAt.millisecondsSinceEpoch, updatedAt: updatedAt.millisecondsSinceEpoch,
                    revision: revision)
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
    func withEntries<R>(_ body: (UnsafeBufferPointer<Entry>, UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try entries.withUnsafeBufferPointer { entries in
            try bytes.withUnsafeBufferPointer { bytes in try body(entries, bytes) }
        }
    }

    /// The title's bytes of `entry`, in `bytes` (the buffer `withEntries` gave).
    static func title(_ entry: Entry, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(entry.titleOffset)..<(Int(entry.titleOffset) + Int(entry.titleLength))])
    }

    /// The bytes of an id that is not a UUID (`entry.uuid == nil`), in `bytes`.
    static func otherID(_ entry: Entry, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(entry.id.high)..<(Int(entry.id.high) + Int(entry.id.low))])
    }

    /// Runs `body` on the id's text (36 bytes written on the stack for a UUID).
    static func withIDText<R>(
        _ entry: Entry, in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
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
