/// One owner's store as it will be once the changes prepared so far are written and applied:
/// what the journal's writer prepares that owner's next change against, without touching what
/// readers see. The writer keeps one per owner in a batch (`Journal.drain`), over that owner's
/// in-memory store, so that no change sees another owner's to-dos.
struct ProjectedStore {
    private let memory: InMemoryTodoStore
    /// To-dos the prepared changes put (a value) or removed (nil), by id.
    private var changed: [String: Todo?] = [:]
    /// Whether a prepared change removed every to-do.
    private var cleared = false
    /// The last revision a refused batch handed out to a to-do, by id: never handed out again.
    private let burned: [String: UInt64]
    /// The last revision this projection handed out to a to-do, by id.
    private(set) var handedOut: [String: UInt64] = [:]

    init(memory: InMemoryTodoStore, burned: [String: UInt64]) {
        self.memory = memory
        self.burned = burned
    }

    /// The to-do as the changes prepared so far leave it.
    func todo(id: String) -> Todo? {
        if let entry = changed[id] { return entry }
        if cleared { return nil }
        var stored: Todo?
        memory.todo(id: id) { stored = (try? $0.get()) ?? nil }
        return stored
    }

    /// The to-do's next revision: one above its own and above any a refused change took.
    mutating func nextRevision(after todo: Todo) -> UInt64 {
        let next = max(todo.revision, burned[todo.id] ?? 0, handedOut[todo.id] ?? 0) + 1
        handedOut[todo.id] = next
        return next
    }

    /// Notes a prepared record, so that later changes see it.
    mutating func apply(_ record: JournalRecord) {
        switch record {
        case .put(let todo): changed[todo.id] = .some(todo)
        case .remove(let id, _): changed[id] = .some(nil)
        case .removeAll:
            changed.removeAll()
            cleared = true
        }
    }
}
