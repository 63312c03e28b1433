import PostgresLoop

/// `DELETE /todos` ordered against every other change, from a PL/pgSQL function (migration 9).
///
/// A change's position is its transaction's id (`TodoEventsSchema`), taken at its first write. A
/// plain `DELETE FROM todos` takes its id at its first row and removes what its snapshot (taken when
/// it began) shows, so the feed could contradict the table both ways: a to-do inserted by a
/// transaction that took its id earlier but committed after that snapshot stayed in the table, yet
/// its `created` came before `cleared` (subscribers dropped a to-do that exists); a to-do changed by a
/// transaction that took its id later, whose lock the `DELETE` waited for, was removed, yet its
/// `updated` came after `cleared` (subscribers kept a to-do that is gone).
///
/// The function first takes the table's `EXCLUSIVE` lock: reads go on, every write waits. A write
/// in progress finishes before it (with a smaller id, and the `DELETE`, whose snapshot is taken after
/// the lock, removes what it wrote); a write that comes later waits until the clear commits and takes
/// a larger id. While the clear waits for the lock, writes that come queue behind it: it gives up
/// after `lock_wait_ms` (`lock_timeout`, 55P03: the store answers 503 with `Retry-After`; 0 waits
/// up to the request deadline), so a transaction left open on the table cannot stall every write
/// for long. A snapshot per statement is read committed's: under another isolation level the
/// `DELETE` would read with the snapshot taken before the lock, so the function refuses (0A000).
extension TodoSQL {
    /// Removes every to-do of the owner $2 and records their `cleared`; $1 the longest wait for the
    /// table lock, in ms.
    static let removeAll = PostgresStatement(name: "todo_remove_all", sql: "SELECT todo_owner_remove_all($2::text, $1::integer)")

    /// `removeAll`'s parameters.
    static func removeAllParameters(lockWait: Duration, owner: Owner = .shared) -> [String?] {
        let (seconds, attoseconds) = lockWait.components
        return [String(seconds * 1000 + attoseconds / 1_000_000_000_000_000), owner.name]
    }

    /// Migration 10: the function `removeAll` calls, migration 9's for one owner's rows. It still
    /// takes the whole table's lock: the feed's order needs every write in progress to finish before
    /// the clear, and a write does not say whose it is before it has a row lock; so a clear holds
    /// every owner's writes for as long as it deletes (its owner's to-dos only). The `DELETE` is
    /// planned on each call for its owner (`EXECUTE`: a generic plan, made for an average owner,
    /// scanned the whole table to clear an owner of ten to-dos where another held nearly all).
    static let ownerRemoveAllFunction = """
        CREATE FUNCTION todo_owner_remove_all(owner_name text, lock_wait_ms integer) RETURNS void LANGUAGE plpgsql AS $function$
        BEGIN
        \(clearGuard)
            LOCK TABLE todo_rows IN EXCLUSIVE MODE;
            EXECUTE 'DELETE FROM todo_rows WHERE owner = $1' USING owner_name;
            INSERT INTO todo_event_rows (owner, kind) VALUES (owner_name, '\(TodoEventsSchema.cleared)');
        END
        $function$
        """

    /// Migration 9: the function builds before owners call (on the view `todos` since migration
    /// 10: it clears the shared list only). `TodoSQL`'s note applies: an edit that changes its
    /// text needs a migration that replaces the function.
    static let removeAllFunction = """
        CREATE FUNCTION todo_remove_all(lock_wait_ms integer) RETURNS void LANGUAGE plpgsql AS $function$
        BEGIN
        \(clearGuard)
            LOCK TABLE todos IN EXCLUSIVE MODE;
            DELETE FROM todos;
            INSERT INTO todo_events (kind) VALUES ('\(TodoEventsSchema.cleared)');
        END
        $function$
        """

    /// How both clear functions begin: they refuse under any isolation level but read committed
    /// (0A000), and wait at most `lock_wait_ms` for the table lock. Part of both pinned texts.
    private static let clearGuard = """
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'a clear needs the read committed isolation level, not %',
                    current_setting('transaction_isolation') USING ERRCODE = '0A000';
            END IF;
            PERFORM set_config('lock_timeout', lock_wait_ms || 'ms', true);
        """
}
