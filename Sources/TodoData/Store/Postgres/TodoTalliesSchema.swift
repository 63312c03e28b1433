/// The kept counts, made cheaper for writes (migration 6; migration 2's `todo_counts` before).
///
/// Marking a to-do done or not done was the costliest part of a PATCH in the database: the
/// statement-level trigger of `todo_counts` gathered the transition tables, grouped them and
/// updated two rows (`EXPLAIN (ANALYZE)` of the store's update: the trigger took 44 of 115 µs, with
/// the trigger's own statements showing in `pg_stat_statements`). Each slot now keeps one row with
/// the number of to-dos and the number of done ones, so a change of `completed` updates one row, from
/// a row-level trigger with no transition table (the trigger took 14 to 19 µs in the same
/// measurement; since migration 7 it runs for every update and tests the change itself, `slotOnce`). Inserts and deletes keep statement-level
/// triggers, which update their slots in slot order (a bulk `DELETE` updates 16 rows, not one per
/// to-do; two statements cannot deadlock on them). A statement that changes `completed` of many
/// to-dos updates their slots row by row, in the rows' order: two such statements at once could
/// deadlock (PostgreSQL then stops one); the store never sends one (it changes one to-do at a time).
///
/// An insert stays counted by the statement-level trigger although a row-level one (one `UPDATE`)
/// cost a POST ~19 µs less of PostgreSQL's processor time (issue 22, docs/performance.md): a
/// row-level trigger makes a bulk insert quadratic. Every row's `UPDATE` of the same few
/// `todo_tallies` rows in one transaction adds a version each, and each later one walks the chain
/// of versions before it: 150,000 to-dos in one `INSERT … SELECT` took 108 s against 1.8 s (40,000:
/// 2.7 s against 0.38; no trigger at all: 1.6 s for 150,000).
/// A change of `completed` has the same cost in bulk; the store changes one to-do at a time.
///
/// The count of open to-dos is `total - done`; a list without `q=` sums at most 16 rows.
enum TodoTalliesSchema {
    static let statements: [String] =
        [
            """
            CREATE TABLE todo_tallies (
                slot smallint PRIMARY KEY,
                total bigint NOT NULL,
                done bigint NOT NULL
            )
            """,
            """
            INSERT INTO todo_tallies (slot, total, done)
            SELECT g.slot, coalesce(sum(c.n), 0), coalesce(sum(c.n) FILTER (WHERE c.completed), 0)
            FROM generate_series(0, 15) AS g(slot) LEFT JOIN todo_counts c ON c.slot = g.slot
            GROUP BY g.slot
            """,
        ]
        + ["insert", "delete", "update"].flatMap { name in
            ["DROP TRIGGER todo_counts_\(name) ON todos", "DROP FUNCTION todo_counts_\(name)()"]
        }
        + ["DROP TABLE todo_counts"]
        + statementTrigger(
            "insert", "INSERT", referencing: "NEW TABLE AS changed_rows", sign: "",
            rows: "SELECT todo_count_slot(id) AS slot, completed FROM changed_rows")
        + statementTrigger(
            "delete", "DELETE", referencing: "OLD TABLE AS changed_rows", sign: "-",
            rows: "SELECT todo_count_slot(id) AS slot, completed FROM changed_rows")
        + [
            """
            CREATE FUNCTION todo_tallies_update() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE todo_tallies SET done = done + CASE WHEN NEW.completed THEN 1 ELSE -1 END
                WHERE slot = todo_count_slot(NEW.id);
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER todo_tallies_update AFTER UPDATE OF completed ON todos
            FOR EACH ROW WHEN (OLD.completed IS DISTINCT FROM NEW.completed) EXECUTE FUNCTION todo_tallies_update()
            """,
        ]

    /// Migration 7: the row-level trigger of a change of `completed`, cheaper. Version 6's
    /// `WHERE slot = todo_count_slot(NEW.id)` was worked out for each of the 16 rows its scan of
    /// `todo_tallies` read (the uuid as text, its last digit), and its `WHEN` condition was read
    /// back from the catalog's text form by every statement that fired it; the slot is now worked
    /// out once and the condition tested in the function (callgrind, one PATCH: the trigger went
    /// from ~139,000 to ~70,000 of PostgreSQL's instructions, docs/performance.md).
    static let slotOnce: [String] = [
        completedTrigger(table: "todo_tallies", condition: " WHERE slot = changed"),
        "DROP TRIGGER todo_tallies_update ON todos",
        """
        CREATE TRIGGER todo_tallies_update AFTER UPDATE OF completed ON todos
        FOR EACH ROW EXECUTE FUNCTION todo_tallies_update()
        """,
    ]

    /// Migration 7's row-level trigger function on `table`: when `completed` changed, the done
    /// count of the to-do's slot (`changed`) moves by one, in the row `condition` picks (its text
    /// from the `CASE`'s end: migration 10's, on its owner's slot, starts a line of its own). A
    /// migrated database keeps the text it was given: both are pinned in `TodoSQLTests`.
    static func completedTrigger(table: String, condition: String) -> String {
        """
        CREATE OR REPLACE FUNCTION todo_tallies_update() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            changed smallint;
        BEGIN
            IF OLD.completed IS DISTINCT FROM NEW.completed THEN
                changed := todo_count_slot(NEW.id);
                UPDATE \(table) SET done = done + CASE WHEN NEW.completed THEN 1 ELSE -1 END\(condition);
            END IF;
            RETURN NULL;
        END
        $$
        """
    }

    /// A statement-level trigger after `event` that adds (`sign` "") or takes away (`sign` "-")
    /// the rows of `rows` (slot, completed) from their slots, in slot order.
    private static func statementTrigger(_ name: String, _ event: String, referencing: String, sign: String, rows: String) -> [String] {
        [
            """
            CREATE FUNCTION todo_tallies_\(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                r record;
            BEGIN
                FOR r IN
                    SELECT d.slot, count(*) AS total, count(*) FILTER (WHERE d.completed) AS done FROM (\(rows)) AS d
                    GROUP BY d.slot ORDER BY d.slot
                LOOP
                    UPDATE todo_tallies SET total = total \(sign.isEmpty ? "+" : "-") r.total, done = done \(sign.isEmpty ? "+" : "-") r.done
                    WHERE slot = r.slot;
                END LOOP;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER todo_tallies_\(name) AFTER \(event) ON todos REFERENCING \(referencing)
            FOR EACH STATEMENT EXECUTE FUNCTION todo_tallies_\(name)()
            """,
        ]
    }
}
