import PostgresLoop

/// An update in one round trip: `updateChanging`, and when it changed nothing the to-do as stored
/// right after it, from a PL/pgSQL function (migration 8).
///
/// Why a function: one SQL statement reads with one snapshot, taken when it starts, so a read in
/// the statement that updates would show the to-do as it was before a change it waited for. In a
/// function under read committed each statement takes a snapshot of its own: the read after the
/// `UPDATE` sees every change committed before it, as the separate `get` did one round trip later
/// (issue 22: the read that followed an unchanging `UPDATE` was over half of a PATCH's statements
/// under contention, and a third of those found the to-do changed again meanwhile).
///
/// The function's body is built from the statements' own fragments (`TodoSQL`'s note: an edit
/// that changes its text needs a migration that replaces the function).
extension TodoSQL {
    /// `update`'s parameters (the owner $14). One row: `outcome` `updated` and the to-do as changed,
    /// or `current` and the to-do as stored (nothing changed: the condition failed, nothing to
    /// change, or its newest version no longer passed); no row: no such to-do of the owner's.
    static let updateOrRead = PostgresStatement(
        name: "todo_update_or_read",
        sql: "SELECT * FROM todo_owner_update_or_read(\((1...14).map { "$\($0)" }.joined(separator: ", ")))")

    /// Migration 8: the function builds before owners call (migration 10 leaves it: on the view
    /// `todos`, it changes the shared list's to-dos). Its parameters are text (each fragment casts
    /// its own, where the top-level statements' parameter types come from those casts);
    /// `#variable_conflict use_column`: the result's column names
    /// are the table's, and a name in a query means the column.
    static let updateOrReadFunction = updateOrReadFunction(owned: false)

    /// Migration 10: `todo_owner_update_or_read`, the function `updateOrRead` calls: migration 8's
    /// on `todo_rows`, the owner its 14th parameter.
    static let ownerUpdateOrReadFunction = updateOrReadFunction(owned: true)

    private static func updateOrReadFunction(owned: Bool) -> String {
        let (name, count, read) =
            owned
            ? ("todo_owner_update_or_read", 14, "FROM todo_rows WHERE todo_rows.id = $1::uuid AND todo_rows.owner = $14::text")
            : ("todo_update_or_read", 13, "FROM todos WHERE todos.id = $1::uuid")
        return """
            CREATE FUNCTION \(name)(\(Array(repeating: "text", count: count).joined(separator: ", ")))
            RETURNS TABLE (outcome text, id text, title text, completed boolean, "order" bigint, due_day integer,
                created_ms bigint, updated_ms bigint, revision bigint)
            LANGUAGE plpgsql AS $function$
            #variable_conflict use_column
            BEGIN
                RETURN QUERY \(changing(owned: owned)) SELECT 'updated'::text, \(columns) FROM updated;
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 'current'::text, \(columns) \(read);
                END IF;
            END
            $function$
            """
    }
}
