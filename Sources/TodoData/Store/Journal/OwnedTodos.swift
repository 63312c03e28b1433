/// Every owner's to-dos, by id: what a snapshot holds and what recovery rebuilds. The shared
/// list's apart, as it was before owners.
struct OwnedTodos {
    var shared: [String: Todo] = [:]
    /// Named owners' to-dos (an owner whose to-dos were all removed may be here with none).
    var owners: [Owner: [String: Todo]] = [:]

    /// Every owner's to-dos together.
    var count: Int { owners.values.reduce(shared.count) { $0 + $1.count } }

    /// Makes the change `record` makes, to its owner's to-dos only.
    mutating func apply(_ record: OwnedRecord) {
        if record.owner.isShared {
            Self.apply(record.record, to: &shared)
        } else {
            Self.apply(record.record, to: &owners[record.owner, default: [:]])
        }
    }

    static func apply(_ record: JournalRecord, to todos: inout [String: Todo]) {
        switch record {
        case .put(let todo): todos[todo.id] = todo
        case .remove(let id, _): todos[id] = nil
        case .removeAll: todos.removeAll()
        }
    }
}
