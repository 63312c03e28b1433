/// Owners in the database (migration 10): every to-do, change and kept count carries its owner
/// (`owner text COLLATE "C" NOT NULL DEFAULT ''`; '' is the shared list), and every index the
/// store's statements read leads with it.
///
/// The tables are renamed (`todos` → `todo_rows`, `todo_events` → `todo_event_rows`,
/// `todo_tallies` → `todo_tally_rows`) and their old names become views of the shared list's rows
/// (`WHERE owner = ''`), which PostgreSQL updates through (simple views are auto-updatable;
/// `LOCK TABLE` on a view locks its table). So the previous build, whose statements name the old
/// tables and no owner, still runs on a database this build migrated (a rollback: the migration is
/// recorded as compatible from 9) and sees exactly the shared list: its inserts get the default
/// owner '', its lists, totals, by-id statements and change feed read the shared list's rows only,
/// and its `DELETE /todos` (`todo_remove_all`, whose `DELETE FROM todos` now goes through the view)
/// removes the shared list's to-dos only, never an owner's. Its statements, planned over the view,
/// read the owner-leading indexes with owner = ''.
///
/// Indexes: the primary key stays `id` (ids are unique across owners, and a by-id statement
/// reads the one row with that id and keeps it only if it is the caller's: at most one row read,
/// none of another owner's answered); the list's default order, the title order and upcoming's
/// due dates lead with `owner`, so a page, a filtered count or an upcoming range reads the
/// caller's index range only. They replace the indexes of migrations 1, 3 and 5 (same columns
/// after `owner`): a write updates as many indexes as before.
///
/// The kept counts are per owner and slot (`todo_tally_rows`, primary key (owner, slot)); the
/// triggers keep the same names, now counting by owner: an owner's first to-do in a slot inserts
/// that slot's row. Changes carry their owner, and each instance's feed sends each change to its
/// owner's change log (`PostgresChangeFeed.log(of:)`), so an owner's feed is scoped on every
/// instance. Positions stay the database's (`xid`, `seq`): one order for every owner.
///
/// A statement whose plan depends on how many to-dos the owner holds is planned for its owner
/// (`TodoSQL.list(_:owner:)`, the clear's `EXECUTE`); the others keep generic plans.
///
/// The migration runs in one transaction (as every migration): the new indexes are built while
/// the table's writes wait, in proportion to the table's size.
enum TodoOwnersSchema {
    /// The to-do columns in the order the views show them (the order of migrations 1 and 3).
    static let todoColumns = #"id, title, title_key, completed, "order", due_date, created_at, updated_at, revision, title_nfc"#
    static let eventColumns = #"xid, seq, kind, id, title, completed, "order", due_date, created_at, updated_at, revision"#

    static let statements: [String] = [
        "ALTER TABLE todos RENAME TO todo_rows",
        "ALTER INDEX todos_pkey RENAME TO todo_rows_pkey",
        #"ALTER TABLE todo_rows ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT ''"#,
        "DROP INDEX todos_default_order",
        #"CREATE INDEX todo_rows_default_order ON todo_rows (owner, (("order" IS NULL)), "order", created_at, id)"#,
        "DROP INDEX todos_title_key",
        "CREATE INDEX todo_rows_title_key ON todo_rows (owner, title_key, title_nfc, created_at, id)",
        "DROP INDEX todos_upcoming",
        "CREATE INDEX todo_rows_upcoming ON todo_rows (owner, due_date) WHERE due_date IS NOT NULL",
        "CREATE VIEW todos AS SELECT \(todoColumns) FROM todo_rows WHERE owner = ''",

        "ALTER TABLE todo_events RENAME TO todo_event_rows",
        "ALTER INDEX todo_events_pkey RENAME TO todo_event_rows_pkey",
        #"ALTER TABLE todo_event_rows ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT ''"#,
        "CREATE VIEW todo_events AS SELECT \(eventColumns) FROM todo_event_rows WHERE owner = ''",
        // Both builds prune every owner's changes (the function is the database's, called by name).
        pruneFunction,

        """
        CREATE TABLE todo_tally_rows (
            owner text COLLATE "C" NOT NULL,
            slot smallint NOT NULL,
            total bigint NOT NULL,
            done bigint NOT NULL,
            PRIMARY KEY (owner, slot)
        )
        """,
        "INSERT INTO todo_tally_rows (owner, slot, total, done) SELECT '', slot, total, done FROM todo_tallies",
        copyGrants(from: "todo_tallies", to: "todo_tally_rows"),
        "DROP TABLE todo_tallies",
        "CREATE VIEW todo_tallies AS SELECT slot, total, done FROM todo_tally_rows WHERE owner = ''",
        // A role granted the tables one by one keeps its rights on the new table and, for a
        // rollback, on the views of the old names.
        copyGrants(from: "todo_rows", to: "todos"), copyGrants(from: "todo_event_rows", to: "todo_events"),
        copyGrants(from: "todo_tally_rows", to: "todo_tallies"),
        insertTrigger, deleteTrigger, updateTrigger,

        TodoSQL.ownerUpdateOrReadFunction,
        TodoSQL.ownerRemoveAllFunction,
    ]

    /// Grants on `table` to other roles, given on `target` too.
    static func copyGrants(from table: String, to target: String) -> String {
        """
        DO $$
        DECLARE
            g record;
        BEGIN
            FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
                WHERE table_schema = current_schema() AND table_name = '\(table)' AND grantee <> current_user
            LOOP
                EXECUTE format('GRANT %s ON %I TO %s', g.privilege_type, '\(target)',
                    CASE WHEN g.grantee = 'PUBLIC' THEN 'PUBLIC' ELSE quote_ident(g.grantee) END);
            END LOOP;
        END
        $$
        """
    }

    /// `todo_events_prune(keep)` of migration 4, over every owner's changes.
    static let pruneFunction = TodoEventsSchema.pruneFunction(owned: true)

    /// Inserted to-dos counted per owner and slot, in (owner, slot) order: the slot's row updated,
    /// or made for an owner's first to-do in it.
    static let insertTrigger = tallyTrigger(
        "insert", sign: "+",
        ifMissing: [
            "        IF NOT FOUND THEN",
            "            INSERT INTO todo_tally_rows AS t (owner, slot, total, done) VALUES (r.owner, r.slot, r.total, r.done)",
            "            ON CONFLICT (owner, slot) DO UPDATE SET total = t.total + excluded.total, done = t.done + excluded.done;",
            "        END IF;",
        ])

    /// Deleted to-dos taken off their owner's slots, in (owner, slot) order.
    static let deleteTrigger = tallyTrigger("delete", sign: "-")

    /// A change of `completed` (migration 7's trigger), on its owner's slot.
    static let updateTrigger = TodoTalliesSchema.completedTrigger(
        table: "todo_tally_rows", condition: "\n        WHERE owner = NEW.owner AND slot = changed")

    /// The statement-level trigger function `todo_tallies_<name>`: for each owner and slot of
    /// `changed_rows`, in (owner, slot) order, adds (`sign` "+") or takes away ("-") its to-dos and
    /// done ones, then runs the lines of `ifMissing` (already indented as the loop's body).
    private static func tallyTrigger(_ name: String, sign: String, ifMissing: [String] = []) -> String {
        let loop = """
            CREATE OR REPLACE FUNCTION todo_tallies_\(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                r record;
            BEGIN
                FOR r IN
                    SELECT d.owner, d.slot, count(*) AS total, count(*) FILTER (WHERE d.completed) AS done
                    FROM (SELECT owner, todo_count_slot(id) AS slot, completed FROM changed_rows) AS d
                    GROUP BY d.owner, d.slot ORDER BY d.owner, d.slot
                LOOP
                    UPDATE todo_tally_rows SET total = total \(sign) r.total, done = done \(sign) r.done WHERE owner = r.owner AND slot = r.slot;
            """
        let end = """
                END LOOP;
                RETURN NULL;
            END
            $$
            """
        return ([loop] + ifMissing + [end]).joined(separator: "\n")
    }
}
