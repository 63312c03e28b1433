/// A statement a connection prepares once (on first use after each connect) and then executes by
/// name: `$1`, `$2`, … are its text parameters.
public struct PostgresStatement: Sendable, Hashable {
    public let name: String
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// What a request runs: a prepared statement from the connection's catalogue, or SQL sent unprepared
/// (migrations and other one-off statements; one statement per request, the extended protocol).
public enum PostgresQuery: Sendable, Equatable {
    case prepared(PostgresStatement)
    case unprepared(String)
}
