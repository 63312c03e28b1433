import TestSupport

@testable import TodoData

extension PostgresTestCluster {
    /// A session on `database`, which it has migrated to this build's schema.
    func migratedSession(database: String) async throws -> PostgresTestSession {
        let session = try await PostgresTestSession.open(self, database: database)
        do {
            try await TodoSchema.migrator.migrate(session.connection)
        } catch {
            session.close()
            throw error
        }
        return session
    }
}
