import TodoData

/// A to-do as the JSON body shows it: the to-do and the base of its url. `TodoJSON` writes it.
public struct TodoViewModel: JSONWritable, Sendable, Equatable {
    public var todo: Todo
    /// Scheme, host and port the url starts with.
    public var baseURL: String

    init(_ todo: Todo, baseURL: String) {
        self.todo = todo
        self.baseURL = baseURL
    }

    /// The absolute URL of the to-do.
    public var url: String { Route.todoURL(baseURL: baseURL, id: todo.id) }

    /// What `write(to:)` reserves when the strings need no escape (`withCursor` adds a byte for a
    /// comma): a writer sized by the hint never regrows (a short hint costs one more allocation and
    /// copy per answer).
    public var jsonSizeHint: Int {
        TodoJSON.maximumBytes(id: todo.id.utf8.count, title: todo.title.utf8.count, base: baseURL.utf8.count) + 1
    }

    /// When the id, title and base URL need no escape (nearly always) the whole object is written
    /// in one reservation through a cursor; else member by member.
    public func write(to writer: inout JSONWriter) {
        // Through `utf8`'s contiguous storage: `withUTF8` is mutating, and the copies it needs
        // retained and released three strings per to-do.
        // Each level answers whether the whole object was written: a string without contiguous
        // storage at any level takes the copying path below.
        let written =
            todo.id.utf8.withContiguousStorageIfAvailable { id in
                todo.title.utf8.withContiguousStorageIfAvailable { title in
                    baseURL.utf8.withContiguousStorageIfAvailable { base in
                        write(to: &writer, id: id, title: title, base: base)
                        return true
                    } ?? false
                } ?? false
            } ?? false
        if !written {
            var id = todo.id, title = todo.title, base = baseURL
            id.withUTF8 { id in title.withUTF8 { title in base.withUTF8 { write(to: &writer, id: id, title: title, base: $0) } } }
        }
    }

    private func write(
        to writer: inout JSONWriter, id: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, base: UnsafeBufferPointer<UInt8>
    ) {
        guard JSONEscape.isClean(id), JSONEscape.isClean(title), JSONEscape.isClean(base),
            TodoJSON.fits(createdAt: todo.createdAt, updatedAt: todo.updatedAt, dueDate: todo.dueDate)
        else {
            return TodoJSON.members(
                completed: todo.completed, createdAt: todo.createdAt, dueDate: todo.dueDate, id: id, order: todo.order,
                title: title, updatedAt: todo.updatedAt, base: base, to: &writer)
        }
        writer.withCursor(maximum: TodoJSON.maximumBytes(id: id.count, title: title.count, base: base.count)) { cursor in
            TodoJSON.object(
                completed: todo.completed, createdAt: todo.createdAt, dueDate: todo.dueDate, order: todo.order, title: title,
                updatedAt: todo.updatedAt, base: base, to: &cursor
            ) { cursor in
                cursor.quoted(clean: id)
                return id
            }
        }
    }
}
