/// The store as it will be once the changes prepared so far are written and applied: what the
/// journal's writer prepares the next change against, without touching what readers see.
struct StoreDraft {
    private let memory: InMemoryTodoStore
    /// To-dos the prepared changes put (a value) or removed (nil), by id.
    private var changed: [String: Todo?] = [:]
    /// Whether a prepared change removed every to-do.
    private var cleared = false
    /// The last revision handed out.
    private(set) var revision: UInt64

    init(memory: InMemoryTodoStore, revision: UInt64) {
        self.memory = memory
        self.revision = revision
    }

    /// The to-do as the changes prepared so far leave it.
    func todo(id: String) -> Todo? {
        if let entry = changed[id] { return entry }
        if cleared { return nil }
        var stored: Todo?
        memory.todo(id: id) { stored = (try? $0.get()) ?? nil }
        return stored
    }

    /// The next revision of the store-wide sequence.
    mutating func nextRevision() -> UInt64 {
        revision += 1
        return revision
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
