import PostgresLoop

/// Many to-dos in one statement (`PostgresInsertBatcher`): `insert`'s statement over arrays, one
/// element per to-do, so that the rows cost PostgreSQL one plan, one run of the insert trigger and
/// one commit together (docs/performance.md, "Inserts in batches").
extension TodoSQL {
    /// $1…$10 as `insert`'s, each an array of that parameter for every to-do, in the same order
    /// (`insertManyParameters`). Answers one row per to-do in `columns`, in no promised order.
    static let insertMany = PostgresStatement(
        name: "todo_insert_many",
        sql: """
            WITH inserted AS (
                INSERT INTO todo_rows (owner, id, title, title_key, title_nfc, completed, "order", due_date, created_at, updated_at, revision)
                SELECT b.owner, b.id, b.title, b.title_key, b.title_nfc, b.completed, b."order", b.due_date,
                    TIMESTAMPTZ 'epoch' + b.created_ms * INTERVAL '1 millisecond', TIMESTAMPTZ 'epoch' + b.updated_ms * INTERVAL '1 millisecond', 1
                FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::date[], $7::bigint[], $8::bigint[], $9::text[], $10::text[])
                    AS b(id, title, title_key, completed, "order", due_date, created_ms, updated_ms, title_nfc, owner)
                RETURNING *
            ), event AS (
                \(recordEvent(TodoEventsSchema.created, from: "inserted", owned: true))
            )
            SELECT \(columns) FROM inserted
            """)

    /// `insertParameters` of each to-do, column by column: each an array literal.
    static func insertManyParameters(_ todos: [(todo: Todo, owner: Owner)]) -> [String?] {
        let rows = todos.map { insertParameters($0.todo, owner: $0.owner) }
        return (0..<(rows.first?.count ?? 0)).map { column in arrayLiteral(rows.map { $0[column] }) }
    }

    /// A one-dimensional array in PostgreSQL's text input form: every value double-quoted with `"`
    /// and `\` escaped by a `\` (so braces, commas, spaces, quotes and the word NULL stay text),
    /// nil as an unquoted `NULL`.
    static func arrayLiteral(_ values: [String?]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(values.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let value else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
