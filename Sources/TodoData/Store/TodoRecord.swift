/// One to-do in compact form: 64 bytes, no reference counted field. The one record type for it:
/// the in-memory store keeps one in each slot of `TodoSlots`, and a page of to-dos
/// (`PackedTodos`) is a run of them, whichever store filled it. The id is 16 bytes when it is a
/// lower-case UUID; the title, and any other id, are bytes in a buffer of the record's holder,
/// found by offset and length (`id`, `titleOffset`).
@usableFromInline package struct TodoRecord: Sendable {
    /// A lower-case UUID id's bytes. For any other id (`otherID`): in `TodoSlots` unused (the id is
    /// in `TodoSlots.otherIDs`); in `PackedTodos`, `high` is its offset in `bytes` and `low` its
    /// length.
    @usableFromInline package var id: TodoID16
    package var createdAt: Int64
    package var updatedAt: Int64
    package var revision: UInt64
    /// 0 when unset (`hasOrder`).
    @usableFromInline var order: Int
    /// Where the title's bytes are: in `TodoSlots.titleBytes` for a compact title (any other title
    /// is in `TodoSlots.sideTitles`); in `PackedTodos.bytes` for every title.
    @usableFromInline var titleOffset: UInt32
    @usableFromInline package var titleLength: UInt32
    /// Days since 1970-01-01 (`hasDueDate`).
    @usableFromInline var dueDays: Int32
    /// Two bytes: the fields take 62 of the 64 (the stride is 64 with one byte as with two).
    @usableFromInline package var flags: Flags

    @usableFromInline package struct Flags: OptionSet, Sendable {
        @usableFromInline package let rawValue: UInt16
        @inlinable package init(rawValue: UInt16) { self.rawValue = rawValue }
        package static let live = Flags(rawValue: 1)
        @usableFromInline package static let completed = Flags(rawValue: 2)
        @usableFromInline package static let hasOrder = Flags(rawValue: 4)
        @usableFromInline package static let hasDueDate = Flags(rawValue: 8)
        /// The id is not a lower-case UUID (where its bytes are: `id`).
        @usableFromInline package static let otherID = Flags(rawValue: 16)
        /// The title is printable ASCII, in `TodoSlots.titleBytes` (else in `sideTitles`).
        package static let compactTitle = Flags(rawValue: 32)
        /// A compact title with an upper-case letter (its folded form is another string).
        package static let upperCase = Flags(rawValue: 64)
        /// The title's bytes need no JSON escape, and are written as they are, without a scan:
        /// known for a compact title when it is stored (no `"` or `\`), for any title of a page
        /// when the page is filled.
        package static let plainTitle = Flags(rawValue: 128)
        /// The id's bytes need no JSON escape: so for a UUID (set when it is stored), checked for
        /// any other id when a page is filled.
        package static let plainID = Flags(rawValue: 256)
    }
}

// The initializers stand in an extension: the struct keeps its memberwise one (`vacant`).
extension TodoRecord {
    static let vacant = TodoRecord(
        id: TodoID16(high: 0, low: 0), createdAt: 0, updatedAt: 0, revision: 0, order: 0, titleOffset: 0, titleLength: 0,
        dueDays: 0, flags: [])

    var isLive: Bool { flags.contains(.live) }
    @inlinable
    package var completed: Bool { flags.contains(.completed) }
    @inlinable var hasOrder: Bool { flags.contains(.hasOrder) }
    @inlinable var hasDueDate: Bool { flags.contains(.hasDueDate) }
    var isCompactTitle: Bool { flags.contains(.compactTitle) }
    /// Whether the upcoming index holds it: open, with a due date.
    var isUpcoming: Bool { hasDueDate && !completed }

    /// The order as `Todo` has it.
    @inlinable
    package var orderValue: Int? { hasOrder ? order : nil }
    /// The due date as `Todo` has it.
    @inlinable
    package var dueDate: CalendarDay? { hasDueDate ? CalendarDay(daysSinceEpoch: Int(dueDays)) : nil }
    /// The 16 bytes of a lower-case UUID id, nil for any other id.
    @inlinable
    package var uuid: TodoID16? { flags.contains(.otherID) ? nil : id }

    /// A live to-do with these values; no id, no title yet (their holder files them).
    init(completed: Bool, order: Int?, dueDate: CalendarDay?, createdAt: Timestamp, updatedAt: Timestamp, revision: UInt64) {
        self = .vacant
        self.createdAt = createdAt.millisecondsSinceEpoch
        self.updatedAt = updatedAt.millisecondsSinceEpoch
        self.revision = revision
        var flags: Flags = [.live]
        if completed { flags.insert(.completed) }
        if let order {
            flags.insert(.hasOrder)
            self.order = order
        }
        if let dueDate {
            flags.insert(.hasDueDate)
            dueDays = Int32(truncatingIfNeeded: dueDate.daysSinceEpoch)
        }
        self.flags = flags
    }

    /// The fields of `todo` but its id and title (which `TodoSlots` files).
    init(fieldsOf todo: Todo) {
        self.init(
            completed: todo.completed, order: todo.order, dueDate: todo.dueDate, createdAt: todo.createdAt,
            updatedAt: todo.updatedAt, revision: todo.revision)
    }

    /// Files the id: its 16 bytes when it is a lower-case UUID (`uuid`), else the `otherID` flag
    /// only (the holder keeps its bytes).
    mutating func setID(uuid: TodoID16?) {
        if let uuid {
            id = uuid
            flags.insert(.plainID)
        } else {
            flags.insert(.otherID)
        }
    }

    /// The title's bytes in `buffer`, its holder's buffer of titles (`titleOffset`).
    @inline(__always)
    @inlinable
    package func title(in buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[Int(titleOffset)..<(Int(titleOffset) + Int(titleLength))])
    }

    /// Whether the default order's fields (order, createdAt) differ.
    func movesInDefaultOrder(from old: TodoRecord) -> Bool {
        hasOrder != old.hasOrder || order != old.order || createdAt != old.createdAt
    }
}
