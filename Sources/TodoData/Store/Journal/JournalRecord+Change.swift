extension JournalRecord {
    /// The change the record makes, as the change feed tells it (a to-do is put at revision 1 only
    /// when it is created: every later change raises the revision).
    var changeKind: StoreChangeKind {
        switch self {
        case .put(let todo): todo.revision == 1 ? .created(todo) : .updated(todo)
        case .remove(let id, _): .deleted(id: id)
        case .removeAll: .cleared
        }
    }
}
