import PostgresLoop

/// Rows of `TodoSQL.columns` (from column `first` on) back into to-dos.
enum TodoRowDecoder {
    /// One row's values, parsed from their text; nil when its id is NULL (the empty page's row)
    /// or a value is malformed.
    struct Fields {
        let id: String
        let title: String
        let completed: Bool
        let order: Int?
        let dueDate: CalendarDay?
        let createdAt: Timestamp
        let updatedAt: Timestamp
        let revision: UInt64

        init?(_ rows: PostgresRows, row: Int, first: Int) {
            guard let id = rows[row, first], let title = rows[row, first + 1], let completed = rows[row, first + 2],
                let created = rows[row, first + 5].flatMap({ Int64($0) }),
                let updated = rows[row, first + 6].flatMap({ Int64($0) }),
                let revision = rows[row, first + 7].flatMap({ UInt64($0) })
            else { return nil }
            if let text = rows[row, first + 3] {
                guard let value = Int(text) else { return nil }
                order = value
            } else {
                order = nil
            }
            if let text = rows[row, first + 4] {
                guard let days = Int(text) else { return nil }
                dueDate = CalendarDay(daysSinceEpoch: days)
            } else {
                dueDate = nil
            }
            self.id = id
            self.title = title
            self.completed = completed == "t"
            createdAt = Timestamp(millisecondsSinceEpoch: created)
            updatedAt = Timestamp(millisecondsSinceEpoch: updated)
            self.revision = revision
        }
    }

    /// The to-do in `row`, nil when its id is NULL (the empty page's row) or a value is malformed.
    static func todo(_ rows: PostgresRows, row: Int, first: Int = 0) -> Todo? {
        guard let fields = Fields(rows, row: row, first: first) else { return nil }
        return Todo(
            id: fields.id, title: fields.title, completed: fields.completed, order: fields.order, dueDate: fields.dueDate,
            createdAt: fields.createdAt, updatedAt: fields.updatedAt, revision: fields.revision)
    }

    /// Every to-do of `rows` packed for a page, filled from the row's text without making a
    /// `Todo` (nor its title key); nil when a value is malformed.
    static func packed(_ rows: PostgresRows, first: Int = 0) -> PackedTodos? {
        var byteCount = 0
        for row in 0..<rows.count { byteCount += rows[row, first + 1]?.utf8.count ?? 0 }
        var packed = PackedTodos(capacity: rows.count, byteCapacity: byteCount)
        for row in 0..<rows.count {
            guard rows[row, first] != nil else { continue }
            guard let fields = Fields(rows, row: row, first: first) else { return nil }
            packed.append(
                id: fields.id, title: fields.title, completed: fields.completed, order: fields.order, dueDate: fields.dueDate,
                createdAt: fields.createdAt, updatedAt: fields.updatedAt, revision: fields.revision)
        }
        return packed
    }

    /// Every to-do of `rows`.
    static func todos(_ rows: PostgresRows, first: Int = 0) -> [Todo]? {
        var todos: [Todo] = []
        todos.reserveCapacity(rows.count)
        for row in 0..<rows.count {
            guard rows[row, first] != nil else { continue }
            guard let todo = todo(rows, row: row, first: first) else { return nil }
            todos.append(todo)
        }
        return todos
    }
}
