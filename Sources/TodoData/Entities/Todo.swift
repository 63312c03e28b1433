/// A to-do: what the stores keep and answer, and what the interactors hand the presenters (a
/// value: nothing links it to the store).
/// Properties are declared widest first so that the stored entity carries no padding.
public struct Todo: Sendable, Equatable {
    public let id: String
    public var title: String {
        didSet { titleKey = TitleKey(title) }
    }
    /// The title prepared for sorting and searching, kept in step with `title` (once per change).
    public private(set) var titleKey: TitleKey
    public let createdAt: Timestamp
    public var updatedAt: Timestamp
    /// Stamped by the store on every change, from a store-wide sequence: the to-do's `ETag`.
    public var revision: UInt64
    public var order: Int?
    public var dueDate: CalendarDay?
    public var completed: Bool

    public init(
        id: String, title: String, completed: Bool, order: Int?, dueDate: CalendarDay?,
        createdAt: Timestamp, updatedAt: Timestamp, revision: UInt64 = 0
    ) {
        self.init(
            id: id, title: title, titleKey: TitleKey(title), completed: completed, order: order, dueDate: dueDate,
            createdAt: createdAt, updatedAt: updatedAt, revision: revision)
    }

    /// A to-do whose title key is prepared already (the in-memory store rebuilding one it keeps),
    /// so that reading a to-do does not fold its title again.
    init(
        id: String, title: String, titleKey: TitleKey, completed: Bool, order: Int?, dueDate: CalendarDay?,
        createdAt: Timestamp, updatedAt: Timestamp, revision: UInt64
    ) {
        self.id = id
        self.title = title
        self.titleKey = titleKey
        self.completed = completed
        self.order = order
        self.dueDate = dueDate
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.revision = revision
    }
}
