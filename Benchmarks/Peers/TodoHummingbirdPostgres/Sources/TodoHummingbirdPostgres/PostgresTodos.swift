import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The to-dos in one PostgreSQL table through a `PostgresClient` (its connection pool), one
/// statement per call as hummingbird-examples' todos-postgres does; `revision` counts each row's
/// changes and is its strong `ETag`. With owners (`TODO_OWNER_TOKENS`) every row has an `owner`
/// and every statement is filtered by the caller's (`owner` nil: the shared list, as before
/// owners, with the statements as they were).
struct PostgresTodos: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// What a conditional change found.
    enum Outcome {
        case done(Todo)
        case notFound
        case preconditionFailed(current: Todo)
    }

    static let columns = #"id, title, completed, "order", due_date, created_at, updated_at, revision"#
    typealias Row = (UUID, String, Bool, Int?, String?, Date, Date, Int)
    let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    func createTable() async throws {
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS todos (
                id uuid PRIMARY KEY, title text NOT NULL, completed boolean NOT NULL DEFAULT false,
                "order" integer, due_date text, created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL, revision bigint NOT NULL DEFAULT 1)
            """, logger: logger)
        try await client.query(
            #"CREATE INDEX IF NOT EXISTS todos_list_order ON todos ("order" NULLS LAST, created_at, id)"#,
            logger: logger)
    }

    /// Owners: an `owner` column (the shared list's rows get `''`) and the list's index leading
    /// with it instead of the shared one, so an owner's page reads only that owner's rows.
    func migrateToOwners() async throws {
        try await client.query(#"ALTER TABLE todos ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT ''"#, logger: logger)
        try await client.query(
            #"CREATE INDEX IF NOT EXISTS todos_owner_list_order ON todos (owner, "order" NULLS LAST, created_at, id)"#,
            logger: logger)
        try await client.query("DROP INDEX IF EXISTS todos_list_order", logger: logger)
    }

    func todo(_ row: Row, base: String) -> Todo {
        let id = row.0.uuidString.lowercased()
        return Todo(
            id: id, title: row.1, completed: row.2, order: row.3, dueDate: row.4,
            createdAt: row.5.formatted(formatter), updatedAt: row.6.formatted(formatter),
            url: base + "/todos/" + id, revision: row.7)
    }

    func create(_ input: TodoInput, owner: String?, base: String) async throws -> Todo {
        let rows =
            if let owner {
                try await client.query(
                    """
                    INSERT INTO todos (id, owner, title, completed, "order", due_date, created_at, updated_at)
                    VALUES (\(UUID()), \(owner), \(input.title ?? ""), \(input.completed ?? false), \(input.order ?? nil),
                            \(input.dueDate ?? nil), now(), now())
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            } else {
                try await client.query(
                    """
                    INSERT INTO todos (id, title, completed, "order", due_date, created_at, updated_at)
                    VALUES (\(UUID()), \(input.title ?? ""), \(input.completed ?? false), \(input.order ?? nil),
                            \(input.dueDate ?? nil), now(), now())
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            }
        for try await row in rows.decode(Row.self) { return todo(row, base: base) }
        throw HTTPError(.internalServerError, message: "INSERT returned no row")
    }

    func get(_ id: UUID, owner: String?, base: String) async throws -> Todo? {
        let rows =
            if let owner {
                try await client.query(
                    "SELECT \(unescaped: Self.columns) FROM todos WHERE id = \(id) AND owner = \(owner)", logger: logger)
            } else {
                try await client.query(
                    "SELECT \(unescaped: Self.columns) FROM todos WHERE id = \(id)", logger: logger)
            }
        for try await row in rows.decode(Row.self) { return todo(row, base: base) }
        return nil
    }

    /// One page in the default order (`order` first, absent last, then creation) and the total.
    func page(owner: String?, offset: Int, limit: Int, base: String) async throws -> (todos: [Todo], total: Int) {
        let rows =
            if let owner {
                try await client.query(
                    """
                    SELECT \(unescaped: Self.columns), count(*) OVER () FROM todos WHERE owner = \(owner)
                    ORDER BY "order" NULLS LAST, created_at, id LIMIT \(limit) OFFSET \(offset)
                    """, logger: logger)
            } else {
                try await client.query(
                    """
                    SELECT \(unescaped: Self.columns), count(*) OVER () FROM todos
                    ORDER BY "order" NULLS LAST, created_at, id LIMIT \(limit) OFFSET \(offset)
                    """, logger: logger)
            }
        var todos: [Todo] = []
        var total = 0
        for try await (id, title, completed, order, dueDate, created, updated, revision, count) in rows.decode(
            (UUID, String, Bool, Int?, String?, Date, Date, Int, Int).self)
        {
            todos.append(todo((id, title, completed, order, dueDate, created, updated, revision), base: base))
            total = count
        }
        if todos.isEmpty {
            total = try await count(owner: owner)
        }
        return (todos, total)
    }

    /// A merge patch (`replacing`: a full replacement) in one `UPDATE`, only where the revision is
    /// one of `revisions` (nil: any) and a field changes; when no row changed, one `SELECT` tells
    /// not found, precondition failed and unchanged apart.
    func update(
        _ id: UUID, owner: String?, input: TodoInput, replacing: Bool, revisions: [Int]?, base: String
    ) async throws -> Outcome {
        let setOrder = replacing || input.order != nil
        let setDueDate = replacing || input.dueDate != nil
        let completed = replacing ? (input.completed ?? false) : input.completed
        let rows =
            if let owner {
                try await client.query(
                    """
                    UPDATE todos SET title = COALESCE(\(input.title)::text, title),
                        completed = COALESCE(\(completed)::boolean, completed),
                        "order" = CASE WHEN \(setOrder) THEN \(input.order ?? nil)::integer ELSE "order" END,
                        due_date = CASE WHEN \(setDueDate) THEN \(input.dueDate ?? nil)::text ELSE due_date END,
                        updated_at = now(), revision = revision + 1
                    WHERE id = \(id) AND owner = \(owner) AND (\(revisions == nil) OR revision = ANY(\(revisions ?? [])::bigint[]))
                      AND (title, completed, "order", due_date) IS DISTINCT FROM
                          (COALESCE(\(input.title)::text, title), COALESCE(\(completed)::boolean, completed),
                           CASE WHEN \(setOrder) THEN \(input.order ?? nil)::integer ELSE "order" END,
                           CASE WHEN \(setDueDate) THEN \(input.dueDate ?? nil)::text ELSE due_date END)
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            } else {
                try await client.query(
                    """
                    UPDATE todos SET title = COALESCE(\(input.title)::text, title),
                        completed = COALESCE(\(completed)::boolean, completed),
                        "order" = CASE WHEN \(setOrder) THEN \(input.order ?? nil)::integer ELSE "order" END,
                        due_date = CASE WHEN \(setDueDate) THEN \(input.dueDate ?? nil)::text ELSE due_date END,
                        updated_at = now(), revision = revision + 1
                    WHERE id = \(id) AND (\(revisions == nil) OR revision = ANY(\(revisions ?? [])::bigint[]))
                      AND (title, completed, "order", due_date) IS DISTINCT FROM
                          (COALESCE(\(input.title)::text, title), COALESCE(\(completed)::boolean, completed),
                           CASE WHEN \(setOrder) THEN \(input.order ?? nil)::integer ELSE "order" END,
                           CASE WHEN \(setDueDate) THEN \(input.dueDate ?? nil)::text ELSE due_date END)
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            }
        for try await row in rows.decode(Row.self) { return .done(todo(row, base: base)) }
        guard let current = try await get(id, owner: owner, base: base) else { return .notFound }
        if let revisions, !revisions.contains(current.revision) { return .preconditionFailed(current: current) }
        return .done(current)
    }

    func delete(_ id: UUID, owner: String?, revisions: [Int]?, base: String) async throws -> Outcome {
        let rows =
            if let owner {
                try await client.query(
                    """
                    DELETE FROM todos
                    WHERE id = \(id) AND owner = \(owner) AND (\(revisions == nil) OR revision = ANY(\(revisions ?? [])::bigint[]))
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            } else {
                try await client.query(
                    """
                    DELETE FROM todos WHERE id = \(id) AND (\(revisions == nil) OR revision = ANY(\(revisions ?? [])::bigint[]))
                    RETURNING \(unescaped: Self.columns)
                    """, logger: logger)
            }
        for try await row in rows.decode(Row.self) { return .done(todo(row, base: base)) }
        guard let current = try await get(id, owner: owner, base: base) else { return .notFound }
        return .preconditionFailed(current: current)
    }

    func deleteAll(owner: String?) async throws {
        if let owner {
            try await client.query("DELETE FROM todos WHERE owner = \(owner)", logger: logger)
        } else {
            try await client.query("DELETE FROM todos", logger: logger)
        }
    }

    /// The owner's to-dos (nil: every row, as before owners).
    func count(owner: String? = nil) async throws -> Int {
        let rows =
            if let owner {
                try await client.query("SELECT count(*) FROM todos WHERE owner = \(owner)", logger: logger)
            } else {
                try await client.query("SELECT count(*) FROM todos", logger: logger)
            }
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}
