/// A change to a to-do's writable fields, as values: PATCH (RFC 7396 merge patch) sets only what it
/// names; PUT is `replacement(…)`, setting every field.
public struct TodoChange: Sendable, Equatable {
    /// An optional field's change.
    public enum Field<Value: Sendable & Equatable>: Sendable, Equatable {
        case keep
        case set(Value)
        case clear

        /// `value` with this change applied.
        func applied(to value: Value?) -> Value? {
            switch self {
            case .keep: value
            case .set(let new): new
            case .clear: nil
            }
        }
    }

    /// nil keeps the title.
    public var title: String?
    /// nil keeps `completed`.
    public var completed: Bool?
    public var order: Field<Int>
    public var dueDate: Field<CalendarDay>

    public init(title: String? = nil, completed: Bool? = nil, order: Field<Int> = .keep, dueDate: Field<CalendarDay> = .keep) {
        self.title = title
        self.completed = completed
        self.order = order
        self.dueDate = dueDate
    }

    /// Every writable field set (nil clears order / due date).
    public static func replacement(title: String, completed: Bool, order: Int?, dueDate: CalendarDay?) -> TodoChange {
        TodoChange(
            title: title, completed: completed, order: order.map { .set($0) } ?? .clear,
            dueDate: dueDate.map { .set($0) } ?? .clear)
    }

    /// `todo` with the change applied to its writable fields (revision and times untouched).
    public func applied(to todo: Todo) -> Todo {
        var changed = todo
        // Assigning the title recomputes its sort key: only when it is really another title.
        if let title, !title.hasSameBytes(as: todo.title) { changed.title = title }
        if let completed { changed.completed = completed }
        changed.order = order.applied(to: todo.order)
        changed.dueDate = dueDate.applied(to: todo.dueDate)
        return changed
    }
}
