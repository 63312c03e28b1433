import EventLoops

extension LoopBound where Value: PostgresExecuting {
    /// Sends one request from any thread and waits for its answer (start-up work, tests, tools; the
    /// server's requests call `execute` on their loop instead).
    public func query(_ query: PostgresQuery, _ parameters: [String?] = []) async throws(PostgresError) -> PostgresRows {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<PostgresRows, PostgresError>, Never>) in
            withValue { target in
                target.execute(query, parameters) { continuation.resume(returning: $0) }
            }
        }
        return try result.get()
    }

    /// `query` for unprepared SQL.
    public func query(_ sql: String, _ parameters: [String?] = []) async throws(PostgresError) -> PostgresRows {
        try await query(.unprepared(sql), parameters)
    }
}
