/// One to-do as the in-memory store keeps it: 64 bytes in a slot of `TodoSlots`, no reference
/// counted field. The id is 16 bytes (an id that is not a lower-case UUID lives beside, in
/// `TodoSlots.otherIDs`); a printable ASCII title is a range of `TodoSlots.titleBytes` (any other
/// title, with its key, in `TodoSlots.sideTitles`).
struct TodoRecord {
    var id: TodoID16
    var createdAt: Int64
    var updatedAt: Int64
    var revision: UInt64
    /// 0 when unset (`hasOrder`).
    var order: Int
    var titleOffset: UInt32
    var titleLength: UInt32
    /// Days since 1970-01-01 (`hasDueDate`).
    var dueDays: Int32
    var flags: Flags

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let live = Flags(rawValue: 1)
        static let completed = Flags(rawValue: 2)
        static let hasOrder = Flags(rawValue: 4)
        static let hasDueDate = Flags(rawValue: 8)
        /// The id is in `TodoSlots.otherIDs`.
        static let otherID = Flags(rawValue: 16)
        /// The title is printable ASCII, in `TodoSlots.titleBytes` (else in `sideTitles`).
        static let compactTitle = Flags(rawValue: 32)
        /// A compact title with an upper-case letter (its folded form is another string).
        static let upperCase = Flags(rawValue: 64)
        /// A compact title with no `"` or `\`: written into JSON as it is, without a scan.
        static let plainJSON = Flags(rawValue: 128)
    }

    static let vacant = TodoRecord(
        id: TodoID16(high: 0, low: 0), createdAt: 0, updatedAt: 0, revision: 0, order: 0, titleOffset: 0, titleLength: 0,
        dueDays: 0, flags: [])

    var isLive: Bool { flags.contains(.live) }
    var completed: Bool { flags.contains(.completed) }
    var hasOrder: Bool { flags.contains(.hasOrder) }
    var hasDueDate: Bool { flags.contains(.hasDueDate) }
    var isCompactTitle: Bool { flags.contains(.compactTitle) }
    /// Whether the upcoming index holds it: open, with a due date.
    var isUpcoming: Bool { hasDueDate && !completed }

    /// The fields of `todo` but its id and title (which `TodoSlots` files).
    init(fieldsOf todo: Todo) {
        self = .vacant
        createdAt = todo.createdAt.millisecondsSinceEpoch
        updatedAt = todo.updatedAt.millisecondsSinceEpoch
        revision = todo.revision
        var flags: Flags = [.live]
        if todo.completed { flags.insert(.completed) }
        if let order = todo.order {
            flags.insert(.hasOrder)
            self.order = order
        }
        if let due = todo.dueDate {
            flags.insert(.hasDueDate)
            dueDays = Int32(truncatingIfNeeded: due.daysSinceEpoch)
        }
        self.flags = flags
    }

    private init(
        id: TodoID16, createdAt: Int64, updatedAt: Int64, revision: UInt64, order: Int, titleOffset: UInt32,
        titleLength: UInt32, dueDays: Int32, flags: Flags
    ) {
        self.id = id
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.revision = revision
        self.order = order
        self.titleOffset = titleOffset
        self.titleLength = titleLength
        self.dueDays = dueDays
        self.flags = flags
    }

    /// Whether the default order's fields (order, createdAt) differ.
    func movesInDefaultOrder(from old: TodoRecord) -> Bool {
        hasOrder != old.hasOrder || order != old.order || createdAt != old.createdAt
    }
}
