import PostgresLoop

extension TodoSQL {
    /// One page in `sort`'s order (a statement per order, so that the default order reads the index
    /// `todos_default_order` and stops after the page) and the exact number of to-dos passing the
    /// filters: $1 completed (NULL: any), $2 folded title search (NULL: none), $3 limit, $4 offset,
    /// $5 the owner, whose rows alone are read: each order's index leads with the owner
    /// (`TodoOwnersSchema`), and so do the kept counts' rows.
    ///
    /// One row per to-do on the page after a `total` column and the statement's snapshot (`seen`:
    /// the change feed's cursor of the page, `TodoEventsSchema`); a single row of NULLs but `total` when
    /// the page is empty. Without $2 the total is the sum of the kept counts (`TodoTalliesSchema`), so
    /// an unfiltered page costs the same at any table size; with $2 it is a `count(*)` of the matches,
    /// a scan of the table (`strpos` on the folded title: no index serves a substring search).
    static func list(_ sort: TodoSort) -> PostgresStatement {
        let order = orderBy(sort)
        let filter =
            "owner = $5::text AND ($1::boolean IS NULL OR completed = $1::boolean) AND ($2::text IS NULL OR strpos(title_key, $2::text) > 0)"
        let name = "todo_list_\(sort.field.rawValue)_\(sort.descending ? "desc" : "asc")"
        return PostgresStatement(
            name: name,
            sql: """
                SELECT t.total, pg_current_snapshot()::text AS seen, \(columns)
                FROM (SELECT CASE WHEN $2::text IS NULL
                        THEN (SELECT coalesce(sum(CASE WHEN $1::boolean IS NULL THEN total WHEN $1::boolean THEN done ELSE total - done END), 0)
                            FROM todo_tally_rows WHERE owner = $5::text)::bigint
                        ELSE (SELECT count(*) FROM todo_rows WHERE \(filter)) END AS total) AS t
                LEFT JOIN LATERAL (
                    SELECT id, title, title_key, title_nfc, completed, "order", due_date, created_at, updated_at, revision
                    FROM todo_rows WHERE \(filter)
                    ORDER BY \(order) LIMIT $3::bigint OFFSET $4::bigint
                ) AS p ON true
                ORDER BY \(order)
                """)
    }

    /// The ORDER BY of `sort`, valid over the table and over the page's columns alike: missing
    /// values last in either direction, ties by creation then id, ascending (as `TodoSort`).
    static func orderBy(_ sort: TodoSort) -> String {
        let direction = sort.descending ? " DESC" : ""
        return switch sort.field {
        case .order: #"("order" IS NULL), "order"\#(direction), created_at, id"#
        case .dueDate: "(due_date IS NULL), due_date\(direction), created_at, id"
        case .createdAt: "created_at\(direction), id"
        case .title: "title_key\(direction), title_nfc\(direction), created_at, id"
        }
    }

    /// Every list statement (prepared on first use of each).
    static var lists: [PostgresStatement] {
        TodoSort.Field.allCases.flatMap { field in [false, true].map { list(TodoSort(field, descending: $0)) } }
    }
}
