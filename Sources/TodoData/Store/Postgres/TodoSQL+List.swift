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

    /// The statement a page of `query` for `owner` is read with, its parameters, and whether it is
    /// sent unprepared. Prepared statements get one generic plan per connection, made for an
    /// average owner (`owner = $5`, one of `n_distinct`): right for a page that reads its order's
    /// index and stops (ascending order or title, no `q=`), and for the shared list (planned as
    /// before owners: a database without owners gets the plans it had). Any other page of a named
    /// owner (a `q=` count, an order no index serves) costs what the owner holds: with three
    /// owners, one of 10 to-dos and one of nearly all, the generic plan scanned the whole table for
    /// the small one. So it is planned for its owner: the owner's name (1–128 of `A-Z a-z 0-9 . _ @ -`,
    /// quoted all the same) is written into the statement in place of $5, and the statement is sent
    /// unprepared, each time planned with that owner's statistics.
    static func list(_ query: TodoQuery, owner: Owner) -> (PostgresStatement, [String?], unprepared: Bool) {
        let prepared = list(query.sort)
        let parameters = listParameters(query, owner: owner)
        guard !owner.isShared, query.titleContains != nil || !servedByAnIndex(query.sort) else { return (prepared, parameters, false) }
        let sql = prepared.sql.replacing("$5::text", with: literal(owner.name))
        return (PostgresStatement(name: prepared.name + "_owner", sql: sql), Array(parameters.dropLast()), true)
    }

    /// Whether a page in `sort` reads an index in its order and stops after the page.
    static func servedByAnIndex(_ sort: TodoSort) -> Bool {
        !sort.descending && (sort.field == .order || sort.field == .title)
    }

    /// `text` as an SQL string literal (standard conforming strings: a quote is doubled).
    static func literal(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'::text"
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
