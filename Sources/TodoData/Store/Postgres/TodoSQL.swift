import PostgresLoop

/// The SQL of the PostgreSQL store: one statement per store call, each prepared once per
/// connection. Parameters travel as text (`TodoSQL+Parameters.swift`); rows come back in the
/// columns of `columns` (`TodoRowDecoder`).
///
/// Concurrency rests on PostgreSQL's row locks under READ COMMITTED: a conditional change either
/// updates with the condition in its `WHERE` (`changing`, run by `updateOrRead`'s function: a row
/// changed meanwhile is checked again in its newest version) or locks the row (`FOR UPDATE`, which waits for a concurrent change
/// and then sees its result), decides on the locked row, and changes it in the same statement; so
/// two instances' `If-Match` requests with the same tag serialize and exactly one passes.
///
/// Migration 8's function (`updateOrReadFunction`) is built from `changing`, `columns`,
/// `condition`, `newOrder`, `newDueDate`, `timestamp` and `recordEvent`: a database migrated
/// keeps the text it was given, so an edit of those that changes the function's text needs a
/// migration that replaces the function (`TodoSQLTests.migrationFunctionTextsArePinned` fails
/// until its pin is updated).
enum TodoSQL {
    /// The to-do columns every statement answers, in `TodoRowDecoder`'s order: id, title, completed,
    /// order, due date as days since 1970-01-01, created and updated in ms since the epoch, revision.
    static let columns = """
        id::text AS id, title, completed, "order", (due_date - DATE '1970-01-01') AS due_day, \
        (extract(epoch FROM created_at) * 1000)::bigint AS created_ms, \
        (extract(epoch FROM updated_at) * 1000)::bigint AS updated_ms, revision
        """

    /// Milliseconds since the epoch ($n::bigint) as a timestamptz, exactly (no float on the way).
    static func timestamp(_ parameter: Int) -> String {
        "(TIMESTAMPTZ 'epoch' + $\(parameter)::bigint * INTERVAL '1 millisecond')"
    }

    /// Every statement acts on one owner's rows, the owner ('' for the shared list) its last
    /// parameter (`TodoOwnersSchema`: the tables `todo_rows`, `todo_event_rows`, `todo_tally_rows`).
    /// A by-id statement finds the row by its primary key and keeps it only if it is the owner's;
    /// every other reads an index that leads with `owner`.
    ///
    /// $1 id, $2 title, $3 title key, $4 completed, $5 order, $6 due date (YYYY-MM-DD), $7 created
    /// and $8 updated in ms, $9 the title in NFC, $10 the owner.
    static let insert = PostgresStatement(
        name: "todo_insert",
        sql: """
            WITH inserted AS (
                INSERT INTO todo_rows (owner, id, title, title_key, title_nfc, completed, "order", due_date, created_at, updated_at, revision)
                VALUES ($10::text, $1::uuid, $2, $3, $9, $4::boolean, $5::bigint, $6::date, \(timestamp(7)), \(timestamp(8)), 1)
                RETURNING *
            ), event AS (
                \(recordEvent(TodoEventsSchema.created, from: "inserted", owned: true))
            )
            SELECT \(columns) FROM inserted
            """)

    /// The `INSERT` of a change feed row for each to-do of `rows` (`TodoEventsSchema`): with its
    /// owner into `todo_event_rows` (`owned`), or as migration 8's function wrote it, before owners.
    static func recordEvent(_ kind: String, from rows: String, owned: Bool) -> String {
        guard owned else {
            return """
                INSERT INTO todo_events (kind, id, title, completed, "order", due_date, created_at, updated_at, revision)
                    SELECT '\(kind)', id, title, completed, "order", due_date, created_at, updated_at, revision FROM \(rows)
                """
        }
        return """
            INSERT INTO todo_event_rows (owner, kind, id, title, completed, "order", due_date, created_at, updated_at, revision)
                SELECT owner, '\(kind)', id, title, completed, "order", due_date, created_at, updated_at, revision FROM \(rows)
            """
    }

    /// $1 id, $2 owner: the to-do by its primary key, if it is the owner's.
    static let get = PostgresStatement(name: "todo_get", sql: "SELECT \(columns) FROM todo_rows WHERE id = $1::uuid AND owner = $2::text")

    /// The owner's ($3) open to-dos due in $1...$2 (YYYY-MM-DD), from the partial index
    /// `todo_rows_upcoming` (owner, due date).
    static let upcoming = PostgresStatement(
        name: "todo_upcoming",
        sql: """
            SELECT \(columns) FROM todo_rows
            WHERE owner = $3::text AND NOT completed AND due_date IS NOT NULL AND due_date BETWEEN $1::date AND $2::date
            ORDER BY due_date, ("order" IS NULL), "order", created_at, id
            """)

    /// Whether the locked row `revision` passes the condition: $a If-Match revisions (NULL: none, or
    /// `*`, which an existing row passes), $b If-None-Match `*`, $c If-None-Match revisions (NULL: none).
    static func condition(match a: Int, noneAny b: Int, none c: Int) -> String {
        "(($\(a)::bigint[] IS NULL OR revision = ANY($\(a)::bigint[])) "
            + "AND NOT (coalesce($\(b)::boolean, false) OR coalesce(revision = ANY($\(c)::bigint[]), false)))"
    }

    /// The order and due date an update leaves (`update`'s $5-$8), of the row `row`.
    static func newOrder(_ row: String) -> String { "CASE WHEN $5::boolean THEN $6::bigint ELSE \(row).\"order\" END" }
    static func newDueDate(_ row: String) -> String { "CASE WHEN $7::boolean THEN $8::date ELSE \(row).due_date END" }

    /// `update` when it changes the to-do, in one plain `UPDATE` and the change's event: the
    /// parameters of `update`; one row, the to-do as updated, when the condition passed and a
    /// field changes; no row otherwise (no such to-do, the condition failed, nothing changes, or the
    /// row was changed meanwhile so that its newest version no longer passes). The store runs it
    /// inside `updateOrRead`'s function, which then reads the to-do; this statement alone serves the
    /// tests and the measurements (docs/performance.md). A PATCH that changes something cost PostgreSQL
    /// ~21 % fewer instructions this way than with `update` (docs/performance.md): no `FOR UPDATE`
    /// step, no CTE of decisions to build, and to build again for each row version waited for.
    static let updateChanging = PostgresStatement(name: "todo_update_changing", sql: "\(changing) SELECT \(columns) FROM updated")

    /// `updateChanging`'s modifications: `updated`, the owner's ($14) to-do as changed (no row
    /// when nothing changes), and its event; `updateOrRead`'s function runs them too.
    static let changing = changing(owned: true)

    /// `changing`, or (not `owned`) as migration 8's function has it: on `todos`, with no owner.
    static func changing(owned: Bool) -> String {
        """
        WITH updated AS (
            UPDATE \(owned ? "todo_rows" : "todos") t SET title = coalesce($2::text, t.title), title_key = coalesce($3::text, t.title_key),
                title_nfc = coalesce($13::text, t.title_nfc), completed = coalesce($4::boolean, t.completed),
                "order" = \(newOrder("t")), due_date = \(newDueDate("t")), updated_at = \(timestamp(12)), revision = t.revision + 1
            WHERE t.id = $1::uuid AND \(owned ? "t.owner = $14::text AND " : "")\(condition(match: 9, noneAny: 10, none: 11))
                AND (coalesce($2::text, t.title) IS DISTINCT FROM t.title OR coalesce($4::boolean, t.completed) IS DISTINCT FROM t.completed
                    OR \(newOrder("t")) IS DISTINCT FROM t."order" OR \(newDueDate("t")) IS DISTINCT FROM t.due_date)
            RETURNING t.*
        ), event AS (
            \(recordEvent(TodoEventsSchema.updated, from: "updated", owned: owned))
        )
        """
    }

    /// $1 id; $2 title, $3 its key and $13 its NFC form (NULL keeps); $4 completed (NULL keeps); $5 whether to set
    /// order to $6 (NULL clears); $7 whether to set the due date to $8; $9-$11 the condition
    /// (`condition`); $12 the time in ms; $14 the owner. One row: `outcome` (`updated`, `unchanged`, `failed`) and
    /// the to-do as stored after the statement; no row: no such to-do. Revision and `updated_at`
    /// change only when a field does.
    static let update = PostgresStatement(
        name: "todo_update",
        sql: """
            WITH cur AS (
                SELECT id, title, completed, "order", due_date, created_at, updated_at, revision,
                    \(condition(match: 9, noneAny: 10, none: 11)) AS allowed,
                    coalesce($2::text, title) AS new_title,
                    coalesce($3::text, title_key) AS new_title_key,
                    coalesce($13::text, title_nfc) AS new_title_nfc,
                    coalesce($4::boolean, completed) AS new_completed,
                    \(newOrder("todo_rows")) AS new_order, \(newDueDate("todo_rows")) AS new_due_date
                FROM todo_rows WHERE id = $1::uuid AND owner = $14::text FOR UPDATE
            ), decided AS (
                SELECT *, allowed AND (new_title IS DISTINCT FROM title OR new_completed IS DISTINCT FROM completed
                    OR new_order IS DISTINCT FROM "order" OR new_due_date IS DISTINCT FROM due_date) AS changes
                FROM cur
            ), updated AS (
                UPDATE todo_rows t SET title = d.new_title, title_key = d.new_title_key, title_nfc = d.new_title_nfc, completed = d.new_completed,
                    "order" = d.new_order, due_date = d.new_due_date, updated_at = \(timestamp(12)), revision = t.revision + 1
                FROM decided d WHERE t.id = d.id AND d.changes
                RETURNING t.*
            ), event AS (
                \(recordEvent(TodoEventsSchema.updated, from: "updated", owned: true))
            )
            SELECT 'updated' AS outcome, \(columns) FROM updated
            UNION ALL
            SELECT CASE WHEN allowed THEN 'unchanged' ELSE 'failed' END, \(columns) FROM decided WHERE NOT changes
            """)

    /// $1 id; $2-$4 the condition; $5 the owner. One row: `outcome` (`removed`, `failed`) and the
    /// to-do as it was; no row: no such to-do of the owner's.
    static let remove = PostgresStatement(
        name: "todo_remove",
        sql: """
            WITH cur AS (
                SELECT id, title, completed, "order", due_date, created_at, updated_at, revision,
                    \(condition(match: 2, noneAny: 3, none: 4)) AS allowed
                FROM todo_rows WHERE id = $1::uuid AND owner = $5::text FOR UPDATE
            ), removed AS (
                DELETE FROM todo_rows t USING cur c WHERE t.id = c.id AND c.allowed RETURNING t.id, t.owner
            ), event AS (
                INSERT INTO todo_event_rows (owner, kind, id) SELECT owner, '\(TodoEventsSchema.deleted)', id FROM removed
            )
            SELECT CASE WHEN allowed THEN 'removed' ELSE 'failed' END AS outcome, \(columns) FROM cur
            """)

    /// Every to-do of every owner, from the kept counts.
    static let count = PostgresStatement(name: "todo_count", sql: "SELECT coalesce(sum(total), 0)::bigint FROM todo_tally_rows")

    /// The to-dos of the owner $1, from the kept counts.
    static let ownerCount = PostgresStatement(
        name: "todo_owner_count", sql: "SELECT coalesce(sum(total), 0)::bigint FROM todo_tally_rows WHERE owner = $1::text")
}
