import PostgresLoop

/// The change feed's table (migration 4): one row per change, written by the changing statement
/// itself (a CTE of `TodoSQL.insert`, `update`, `remove`; in the same function as `updateOrRead`'s
/// and `removeAll`'s change), so that a change and its event commit together or not at all.
///
/// A change's position is (`xid`, `seq`): the writing transaction's id, then a number from a
/// sequence. Neither is in commit order — a transaction can commit after one that started later —
/// so positions are not handed out when written. A reader takes only the changes of transactions
/// older than every transaction still running (`xid < pg_snapshot_xmin(pg_current_snapshot())`):
/// those are finished for good, so nothing can later appear below what was read, and every instance
/// reads the same changes in the same (`xid`, `seq`) order. No row is hot: writers never wait for
/// each other on this table.
///
/// A listing reports its own snapshot (`TodoSQL.list`), so that its cursor says exactly which
/// changes it reflects, including those of transactions that committed while older ones were
/// still running. `todo_event_floor` holds the newest position pruned away: a cursor before it may
/// have missed changes (a resync).
enum TodoEventsSchema {
    static let statements: [String] = [
        "CREATE SEQUENCE todo_events_seq",
        """
        CREATE TABLE todo_events (
            xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            seq bigint NOT NULL DEFAULT nextval('todo_events_seq'),
            kind "char" NOT NULL,
            id uuid,
            title text,
            completed boolean,
            "order" bigint,
            due_date date,
            created_at timestamptz,
            updated_at timestamptz,
            revision bigint,
            PRIMARY KEY (xid, seq)
        )
        """,
        """
        CREATE TABLE todo_event_floor (
            one boolean PRIMARY KEY DEFAULT true CHECK (one),
            xid xid8 NOT NULL,
            seq bigint NOT NULL
        )
        """,
        "INSERT INTO todo_event_floor (xid, seq) VALUES ('0'::xid8, 0)",
        pruneFunction,
    ]

    /// The kinds as stored.
    static let created = "c", updated = "u", deleted = "d", cleared = "x"
}

extension TodoEventsSchema {
    /// The advisory lock one instance at a time prunes under (any fixed number: "todoprun").
    static let pruneLockKey: Int64 = 0x746F_646F_7072_756E

    /// `todo_events_prune(keep)`: removes all but the newest `keep` changes and moves the floor up;
    /// only one instance at a time (others skip: the lock is tried, not waited for).
    static let pruneFunction = pruneFunction(owned: false)

    /// The prune function's text: migration 4's over `todo_events`, or (`owned`) migration 10's,
    /// which replaces it, over every owner's changes in `todo_event_rows`. A migrated database
    /// keeps the text it was given (`TodoSQL`'s note: both are pinned in `TodoSQLTests`).
    static func pruneFunction(owned: Bool) -> String {
        let (create, table) = owned ? ("CREATE OR REPLACE FUNCTION", "todo_event_rows") : ("CREATE FUNCTION", "todo_events")
        return """
            \(create) todo_events_prune(keep bigint) RETURNS bigint LANGUAGE plpgsql AS $$
            DECLARE
                cut record;
                gone bigint := 0;
            BEGIN
                IF NOT pg_try_advisory_xact_lock(\(pruneLockKey)) THEN RETURN 0; END IF;
                SELECT e.xid, e.seq INTO cut FROM \(table) e ORDER BY e.xid DESC, e.seq DESC OFFSET keep LIMIT 1;
                IF NOT FOUND THEN RETURN 0; END IF;
                DELETE FROM \(table) e WHERE (e.xid, e.seq) <= (cut.xid, cut.seq);
                GET DIAGNOSTICS gone = ROW_COUNT;
                UPDATE todo_event_floor f SET xid = cut.xid, seq = cut.seq WHERE (cut.xid, cut.seq) > (f.xid, f.seq);
                RETURN gone;
            END
            $$
            """
    }
}
