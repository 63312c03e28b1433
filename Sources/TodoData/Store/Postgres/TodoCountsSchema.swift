/// Exact counts of the to-dos without counting them per list (migration 2).
///
/// `X-Total-Count` must be exact, and an exact `count(*)` over the table in every list statement would
/// make each page cost in proportion to the table. So the count of to-dos per `completed` value is kept in
/// `todo_counts` by statement-level triggers, in the same transaction as the change (exact under
/// any concurrency, rolled back with it). The count is spread over 16 slots per value (the last hex
/// digit of the id), so concurrent writers rarely wait for the same row and no single row is hot;
/// a trigger updates its slots in (completed, slot) order, so two statements cannot deadlock on them.
/// A list without `q=` reads its total as the sum of at most 32 rows.
enum TodoCountsSchema {
    static let statements: [String] = [
        [
            """
            CREATE TABLE todo_counts (
                completed boolean NOT NULL,
                slot smallint NOT NULL,
                n bigint NOT NULL,
                PRIMARY KEY (completed, slot)
            )
            """,
            """
            CREATE FUNCTION todo_count_slot(id uuid) RETURNS smallint LANGUAGE sql IMMUTABLE AS
            $$ SELECT (position(right($1::text, 1) IN '0123456789abcdef') - 1)::smallint $$
            """,
            """
            INSERT INTO todo_counts (completed, slot, n)
            SELECT b.completed, g.slot::smallint,
                   (SELECT count(*) FROM todos t WHERE t.completed = b.completed AND todo_count_slot(t.id) = g.slot)
            FROM (VALUES (false), (true)) AS b(completed), generate_series(0, 15) AS g(slot)
            """,
        ],
        trigger(
            "insert", "INSERT", referencing: "NEW TABLE AS changed_rows",
            rows: """
                SELECT completed, todo_count_slot(id) AS slot, 1 AS delta FROM changed_rows
                """),
        trigger(
            "delete", "DELETE", referencing: "OLD TABLE AS changed_rows",
            rows: """
                SELECT completed, todo_count_slot(id) AS slot, -1 AS delta FROM changed_rows
                """),
        trigger(
            "update", "UPDATE", referencing: "OLD TABLE AS old_rows NEW TABLE AS new_rows",
            rows: """
                SELECT completed, todo_count_slot(id) AS slot, 1 AS delta FROM new_rows
                UNION ALL SELECT completed, todo_count_slot(id), -1 FROM old_rows
                """),
    ].flatMap { $0 }

    /// A statement-level trigger after `event` that adds the summed deltas of `rows` to their slots.
    private static func trigger(_ name: String, _ event: String, referencing: String, rows: String) -> [String] {
        [
            """
            CREATE FUNCTION todo_counts_\(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                r record;
            BEGIN
                FOR r IN
                    SELECT d.completed, d.slot, sum(d.delta) AS delta FROM (\(rows)) AS d
                    GROUP BY d.completed, d.slot HAVING sum(d.delta) <> 0 ORDER BY d.completed, d.slot
                LOOP
                    UPDATE todo_counts SET n = n + r.delta WHERE completed = r.completed AND slot = r.slot;
                END LOOP;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER todo_counts_\(name) AFTER \(event) ON todos REFERENCING \(referencing)
            FOR EACH STATEMENT EXECUTE FUNCTION todo_counts_\(name)()
            """,
        ]
    }
}
