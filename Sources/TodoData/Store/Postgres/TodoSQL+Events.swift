import PostgresLoop

extension TodoSQL {
    /// The columns of a change: position (xid as text, seq), kind, the to-do's `columns`, then its
    /// owner (`eventOwnerColumn`). The
    /// text is named apart from `xid`: an `ORDER BY xid` would sort by an output column of that
    /// name, as text ("1000" before "963").
    static let eventOwnerColumn = 11
    /// `eventsAfter`'s last column: true when changes after the position it read from were pruned.
    static let eventPrunedColumn = 12
    static let eventColumns = "xid::text AS xid_text, seq, kind, \(columns), owner"

    /// Changes after ($1 xid, $2 seq) of finished transactions only (`TodoEventsSchema`), in
    /// order, at most $3. Every owner's: the reader sends each to its owner's log. Each row ends
    /// with whether the floor is past ($1, $2) (`eventPrunedColumn`): a prune (another instance's)
    /// removed changes after that position before they were read, so the rows do not follow on
    /// from it. One statement, one snapshot, and a prune deletes and moves the floor in one
    /// transaction: the flag and the rows agree. It comes with rows only: when every row after the
    /// floor is of a transaction not yet older than all running ones, the read finds nothing and
    /// the next read that finds rows tells (a prune keeps at least one change, so one comes).
    static let eventsAfter = PostgresStatement(
        name: "todo_events_after",
        sql: """
            SELECT \(eventColumns),
                (SELECT (f.xid, f.seq) > ($1::xid8, $2::bigint) FROM todo_event_floor f LIMIT 1) AS pruned
            FROM todo_event_rows e
            WHERE (e.xid, e.seq) > ($1::xid8, $2::bigint) AND e.xid < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY e.xid, e.seq LIMIT $3::bigint
            """)

    /// Where a window of the newest $1 changes starts: the later of the floor and the position
    /// just before them (the change $1 + 1 from the newest, among finished transactions).
    static let eventsStart = PostgresStatement(
        name: "todo_events_start",
        sql: """
            SELECT s.xid::text AS xid_text, s.seq FROM (
                SELECT f.xid, f.seq FROM todo_event_floor f
                UNION ALL
                (SELECT e.xid, e.seq FROM todo_event_rows e WHERE e.xid < pg_snapshot_xmin(pg_current_snapshot())
                 ORDER BY e.xid DESC, e.seq DESC OFFSET $1::bigint LIMIT 1)
            ) AS s ORDER BY s.xid DESC, s.seq DESC LIMIT 1
            """)

    /// Removes all but the newest $1 changes (one instance at a time).
    static let eventsPrune = PostgresStatement(name: "todo_events_prune", sql: "SELECT todo_events_prune($1::bigint)")
    /// Tells every listening instance that changes can be read (`PostgresChangeFeed.channel`).
    static let eventsAnnounce = PostgresStatement(
        name: "todo_events_announce", sql: "SELECT pg_notify('\(PostgresChangeFeed.channel)', '')")
}
