/// What one statement returned: its rows as text values (PostgreSQL's text output format), column
/// names, and the number of rows a command touched.
public struct PostgresRows: Sendable, Equatable {
    public let columns: [String]
    /// Row-major: `columns.count` values per row; nil is SQL NULL.
    public let values: [String?]
    /// Rows inserted, updated, deleted or selected (`PQcmdTuples`); 0 when the command says none.
    public let affectedRows: Int

    public init(columns: [String], values: [String?], affectedRows: Int) {
        self.columns = columns
        self.values = values
        self.affectedRows = affectedRows
    }

    /// A command's answer without rows.
    public static func command(affectedRows: Int) -> PostgresRows {
        PostgresRows(columns: [], values: [], affectedRows: affectedRows)
    }

    public var count: Int { columns.isEmpty ? 0 : values.count / columns.count }

    /// The value at `row`, `column`; nil for NULL.
    public subscript(row: Int, column: Int) -> String? {
        values[row * columns.count + column]
    }

    /// The value at `row` in the column named `name`; nil for NULL or no such column.
    public subscript(row: Int, name: String) -> String? {
        guard let column = columns.firstIndex(of: name) else { return nil }
        return self[row, column]
    }
}
