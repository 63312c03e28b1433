import PostgresLoop

/// Rows of `TodoSQL.columns` (from column `first` on) back into to-dos.
enum TodoRowDecoder {
    /// The to-do in `row`, nil when its id is NULL (the empty page's row) or a value is malformed.
    static func todo(_ rows: PostgresRows, row: Int, first: Int = 0) -> Todo? {
        guard let id = rows[row, first], let title = rows[row, first + 1], let completed = rows[row, first + 2],
              let created = rows[row, first + 5].flatMap({ Int64($0) }),
              let updated = rows[row, first + 6].flatMap({ Int64($0) }),
              let revision = rows[row, first + 7].flatMap({ UInt64($0) })
        else { return nil }
        var order: Int?
        if let text = rows[row, first + 3] {
            guard let value = Int(text) else { return nil }
            order = value
        }
        var dueDate: CalendarDay?
        if let text = rows[row, first + 4] {
            guard let days = Int(text) else { return nil }
            dueDate = CalendarDay(daysSinceEpoch: days)
        }
        return Todo(
            id: id, title: title, completed: completed == "t", order: order, dueDate: dueDate,
            createdAt: Timestamp(millisecondsSinceEpoch: created), updatedAt: Timestamp(millisecondsSinceEpoch: updated),
            revision: revision)
    }

    /// Every to-do of `rows` as a page's snapshots, filled from the row's text without making a
    /// `Todo` (nor its title key); nil when a value is malformed.
    static func snapshots(_ rows: PostgresRows, first: Int = 0) -> TodoSnapshots? {
        var byteCount = 0
        for row in 0..<rows.count { byteCount += rows[row, first + 1]?.utf8.count ?? 0 }
        var snapshots = TodoSnapshots(capacity: rows.count, byteCapacity: byteCount)
        for row in 0..<rows.count {
            guard let id = rows[row, first] else { continue }
            guard let title = rows[row, first + 1], let completed = rows[row, first + 2],
                  let created = rows[row, first + 5].flatMap({ Int64($0) }),
                  let updated = rows[row, first + 6].flatMap({ Int64($0) }),
                  let revision = rows[row, first + 7].flatMap({ UInt64($0) })
            else { return nil }
            var order: Int?
            if let text = rows[row, first + 3] {
                guard let value = Int(text) else { return nil }
                order = value
            }
            var dueDate: CalendarDay?
            if let text = rows[row, first + 4] {
                guard let days = Int(text) else { return nil }
                dueDate = CalendarDay(daysSinceEpoch: days)
            }
            snapshots.append(
                id: id, title: title, completed: completed == "t", order: order, dueDate: dueDate,
                createdAt: Timestamp(millisecondsSinceEpoch: created), updatedAt: Timestamp(millisecondsSinceEpoch: updated),
                revision: revision)
        }
        return snapshots
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
