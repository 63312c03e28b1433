/// A to-do as interactors hand it out: plain values, no behaviour, no link to the store.
public struct TodoData: Sendable, Equatable {
    public var id: String
    public var title: String
    public var completed: Bool
    public var order: Int?
    public var dueDate: CalendarDay?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    init(_ todo: Todo) {
        id = todo.id
        title = todo.title
        completed = todo.completed
        order = todo.order
        dueDate = todo.dueDate
        createdAt = todo.createdAt
        updatedAt = todo.updatedAt
    }
}
