/// Exact counts of the to-dos without counting them per list (migration 2, slots spread by migration 6).
///
/// `X-Total-Count` must be exact, and an exact `count(*)` over the table in every list statement would
/// make each page cost in proportion to the table. So the count of to-dos per `completed` value is kept in
/// `todo_counts` by statement-level triggers, in the same transaction as the change (exact under
/// any concurrency, rolled back with it). The count is spread over slots per value (16 chosen by the
/// id's last hex digit in migration 2; 64 chosen at random per statement from migration 6), so
/// concurrent writers rarely wait for the same row and no single row is hot; a trigger updates its
/// rows in `completed` order, so two statements cannot deadlock on them. A list without `q=` reads
/// its total as the sum of one value's slots.
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

    /// Migration 6: 64 slots per `completed` value, and each statement adds its net change per value
    /// to one slot drawn at random (any slot will do: only the sum is read). With 16 slots chosen
    /// by the id, four backends inserting at once often met on one row and waited for each other's
    /// commit (seen with `log_lock_waits`); a PATCH that keeps `completed` now touches no slot
    /// (its +1 and -1 net to nothing before a slot is chosen).
    static let spreadSlots: [String] = [
        """
        INSERT INTO todo_counts (completed, slot, n)
        SELECT b.completed, g.slot::smallint, 0
        FROM (VALUES (false), (true)) AS b(completed), generate_series(16, \(slots - 1)) AS g(slot)
        """,
        spreadFunction("insert", rows: "SELECT completed, 1 AS delta FROM changed_rows"),
        spreadFunction("delete", rows: "SELECT completed, -1 AS delta FROM changed_rows"),
        spreadFunction(
            "update", rows: "SELECT completed, 1 AS delta FROM new_rows UNION ALL SELECT completed, -1 FROM old_rows"),
    ]

    /// Slots per `completed` value from migration 6 on.
    static let slots = 64

    /// The trigger function `todo_counts_<name>` of migration 6: the net delta of `rows` per value,
    /// in `completed` order (so two statements take their rows in one order), each to a random slot.
    private static func spreadFunction(_ name: String, rows: String) -> String {
        """
        CREATE OR REPLACE FUNCTION todo_counts_\(name)() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            r record;
            s smallint;
        BEGIN
            FOR r IN
                SELECT d.completed, sum(d.delta) AS delta FROM (\(rows)) AS d
                GROUP BY d.completed HAVING sum(d.delta) <> 0 ORDER BY d.completed
            LOOP
                s := floor(random() * \(slots))::smallint;
                UPDATE todo_counts SET n = n + r.delta WHERE completed = r.completed AND slot = s;
            END LOOP;
            RETURN NULL;
        END
        $$
        """
    }

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
