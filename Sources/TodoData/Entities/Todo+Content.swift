extension Todo {
    /// Whether the writable fields (title, completed, order, dueDate) hold the same values, the
    /// title byte for byte: a change that leaves them so changes nothing.
    func hasSameContent(as other: Todo) -> Bool {
        completed == other.completed && order == other.order && dueDate == other.dueDate
            && title.hasSameBytes(as: other.title)
    }
}
