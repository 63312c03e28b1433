import PostgresLoop

/// The to-do tables in PostgreSQL, as versioned migrations run at start-up (`PostgresMigrator`).
///
/// Written for a store that answers each request with one statement: a uuid key chosen by the
/// application (no sequence, no hot row), a revision per to-do for conditional requests, the title's
/// case-folded key computed by the application (`TodoTitleKey`) because the database's `lower()`
/// follows its collation, and nulls-last ordering written as `("order" IS NULL), "order"` so that
/// engines whose indexes cannot say `NULLS LAST` serve it too.
public enum TodoSchema {
    /// The advisory lock every TodoServer instance takes while migrating (any fixed 64-bit number;
    /// this one spells "todosrv1" in ASCII).
    public static let migrationLockKey: Int64 = 0x746F_646F_7372_7631

    public static let migrations: [PostgresMigration] = [
        PostgresMigration(
            version: 1, name: "todos",
            statements: [
                """
                CREATE TABLE todos (
                    id uuid PRIMARY KEY,
                    title text NOT NULL,
                    title_key text COLLATE "C" NOT NULL,
                    completed boolean NOT NULL DEFAULT false,
                    "order" bigint,
                    due_date date,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    revision bigint NOT NULL CHECK (revision > 0)
                )
                """,
                // The default list order: by "order" with nulls last, then creation, then id.
                """
                CREATE INDEX todos_default_order ON todos ((("order" IS NULL)), "order", created_at, id)
                """,
                // Upcoming: open to-dos by due date.
                """
                CREATE INDEX todos_upcoming ON todos (due_date) WHERE NOT completed AND due_date IS NOT NULL
                """,
                // Case-insensitive title order.
                """
                CREATE INDEX todos_title_key ON todos (title_key, id)
                """,
            ]),
        PostgresMigration(version: 2, name: "todo_counts", statements: TodoCountsSchema.statements),
        // Titles compared as in memory: the key case-folded (`CaseFold`, where version 1 lowercased:
        // `ς` and `σ`, `ß` and `ss` differ there), ties broken by the title in NFC (`title_nfc`),
        // not by its bytes as sent (composed and decomposed `café` sorted apart). An ASCII title's
        // key is unchanged and it is its own NFC; every other row is rewritten by the server.
        PostgresMigration(
            version: 3, name: "title_case_folding",
            statements: [
                #"ALTER TABLE todos ADD COLUMN title_nfc text COLLATE "C""#,
                "UPDATE todos SET title_nfc = title WHERE octet_length(title) = char_length(title)",
            ],
            rewrite: PostgresRowRewrite(
                select: "SELECT id::text, title FROM todos WHERE title_nfc IS NULL",
                update: "UPDATE todos SET title_key = $2, title_nfc = $3 WHERE id = $1::uuid",
                transform: { row in [row[0], row[1].map(TodoTitleKey.fold), row[1].map(TodoTitleKey.exact)] }),
            finally: [
                "ALTER TABLE todos ALTER COLUMN title_nfc SET NOT NULL",
                "DROP INDEX todos_title_key",
                "CREATE INDEX todos_title_key ON todos (title_key, title_nfc, created_at, id)",
            ]),
        PostgresMigration(version: 4, name: "todo_events", statements: TodoEventsSchema.statements),
        // Marking a to-do done or not done becomes a HOT update (the new row version on the same
        // page, no index touched): version 1's `todos_upcoming` named `completed` in its predicate,
        // and a column an index's predicate reads counts as indexed, so every change of `completed`
        // added an entry to each of the table's other indexes (`n_tup_hot_upd` stayed 0) and left
        // the old ones to vacuum. The index now holds every to-do with a due date; `upcoming` skips
        // the done ones in its range on the table.
        PostgresMigration(
            version: 5, name: "hot_completed",
            statements: [
                "DROP INDEX todos_upcoming",
                "CREATE INDEX todos_upcoming ON todos (due_date) WHERE due_date IS NOT NULL",
            ]),
        // Cheaper writes: one kept-count row per slot with the total and the done, a change of
        // `completed` updates one of them from a row-level trigger (`TodoTalliesSchema`).
        PostgresMigration(version: 6, name: "todo_tallies", statements: TodoTalliesSchema.statements),
        // A cheaper trigger for a change of `completed`: its slot worked out once, its condition in
        // the function (`TodoTalliesSchema.slotOnce`).
        PostgresMigration(version: 7, name: "todo_tallies_slot_once", statements: TodoTalliesSchema.slotOnce),
        // An update and, when it changed nothing, the read that decides, in one round trip
        // (`TodoSQL+UpdateOrRead.swift`). Only adds a function: builds that know version 7 run with it.
        PostgresMigration(
            version: 8, name: "todo_update_or_read", statements: [TodoSQL.updateOrReadFunction], compatibleFrom: 7),
        // `DELETE /todos` ordered against every other change in the feed (`TodoSQL+RemoveAll.swift`).
        // Only adds a function: builds that know version 7 run with it (their clears unordered).
        // Recorded as such from this build on; builds before it refuse any newer version.
        PostgresMigration(version: 9, name: "todo_remove_all", statements: [TodoSQL.removeAllFunction], compatibleFrom: 7),
        // Owners: every row, change and kept count carries its owner; the old tables' names become
        // views of the shared list, so builds that know version 9 run with it and see the shared
        // list only (`TodoOwnersSchema`).
        PostgresMigration(version: 10, name: "owners", statements: TodoOwnersSchema.statements, compatibleFrom: 9),
    ]

    public static var migrator: PostgresMigrator {
        PostgresMigrator(migrations: migrations, lockKey: migrationLockKey)
    }
}
