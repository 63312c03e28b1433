/// Why a request to PostgreSQL did not give rows.
public enum PostgresError: Error, Sendable, Equatable {
    /// The database could not be reached; the request was never sent, so it did nothing.
    case unavailable(reason: String)
    /// The connection broke after the request was sent: it may or may not have committed.
    case connectionLost(reason: String)
    /// No answer within the per-request deadline; the connection was dropped (the request may or may
    /// not have committed).
    case timedOut
    /// The server refused or failed the statement; nothing of it committed.
    case server(ServerError)
    /// The connection or pool was closed by its owner.
    case closed
    /// A cancel sent for another, overdue request on the same connection stopped this statement
    /// (57014): it did nothing and may be sent again.
    case interrupted

    /// The statement certainly did not commit and may succeed if sent again: a serialization
    /// failure (40001), a deadlock victim (40P01), or a statement a cancel meant for another stopped.
    public var isRetryable: Bool {
        if case .server(let error) = self { return error.sqlState == "40001" || error.sqlState == "40P01" }
        return self == .interrupted
    }

    /// Whether this says the database is unavailable (down, unreachable, frozen, or closed) rather
    /// than that the statement failed.
    public var isUnavailable: Bool {
        if case .server = self { return false }
        return true
    }
}

/// An error PostgreSQL reported for a statement.
public struct ServerError: Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` unique violation, `40001` serialization failure, …).
    public let sqlState: String
    public let message: String
    public let detail: String?

    public init(sqlState: String, message: String, detail: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(sqlState): \(message)" }
}
