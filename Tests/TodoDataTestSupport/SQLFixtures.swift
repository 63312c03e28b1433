import Foundation
import TestSupport

@testable import TodoData

/// To-dos and questions for the tests that run the PostgreSQL store's statements or the store itself
/// against the throwaway cluster.
enum SQLFixtures {
    static func id(_ number: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012x", number)
    }

    static func todo(
        _ number: Int, title: String = "t", completed: Bool = false, order: Int? = nil, due: CalendarDay? = nil,
        created: Int64 = 1_763_812_800_000
    ) -> Todo {
        Todo(
            id: id(number), title: title, completed: completed, order: order, dueDate: due,
            createdAt: Timestamp(millisecondsSinceEpoch: created), updatedAt: Timestamp(millisecondsSinceEpoch: created),
            revision: 1)
    }

    /// Lock requests on the to-do table not granted yet (`pg_locks` is read live, not from the
    /// snapshot of the activity a transaction keeps).
    static func tableLocksWaiting(_ session: PostgresTestSession) -> Int? {
        guard
            case .success(let rows) = session.blockingQuery(
                "SELECT count(*)::text FROM pg_locks WHERE NOT granted AND locktype = 'relation' AND relation = 'todo_rows'::regclass")
        else { return nil }
        return rows[0, 0].flatMap { Int($0) }
    }
}
