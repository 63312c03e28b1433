/// A to-do as interactors hand it out: plain values, no behaviour, no link to the store.
public struct TodoData: Sendable, Equatable {
    public var id: String
    public var title: String
    public var completed: Bool
    public var order: Int?
    public var dueDate: CalendarDay?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// The to-do's revision (1 when created, +1 per change): its entity tag.
    public var revision: UInt64

    init(_ todo: Todo) {
        id = todo.id
        title = todo.title
        completed = todo.completed
        order = todo.order
        dueDate = todo.dueDate
        createdAt = todo.createdAt
        updatedAt = todo.updatedAt
        revision = todo.revision
    }

    /// The strong entity tag of this version of the to-do.
    public var entityTag: EntityTag { EntityTag(revision: revision) }
}

/// One page of the list as interactors hand it out.
public struct TodoListData: Sendable, Equatable {
    public var items: [TodoData]
    /// How many to-dos passed the filters, on all pages.
    public var total: Int
    public var offset: Int
    public var limit: Int
}
