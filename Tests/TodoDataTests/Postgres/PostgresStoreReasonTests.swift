import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

@testable import TodoData

/// What the PostgreSQL store says while the database cannot be reached (the process's exit at
/// start-up: `TodoServerAppTests`' `DatabaseStartupEndToEndTests`).
@Suite struct PostgresStoreReasonTests {
    /// A secret inside libpq's own message (here the socket directory holds it) is masked in the
    /// reason a request and `/healthz` give while the database cannot be reached.
    @Test func aSecretInLibpqsMessageIsMaskedInTheStoresReasons() throws {
        let socketDirectory = "/tmp/todo-hunter2-\(UInt32.random(in: 0...UInt32.max))"
        let store = try PostgresTodoStore(
            configuration: PostgresConfiguration(
                connectionString: "host=\(socketDirectory) port=5999 dbname=todo user=todo password=hunter2",
                timing: PostgresTiming(requestTimeout: .seconds(5), connectTimeout: .seconds(5))))
        defer { store.close() }
        let reason = Mutex<String?>(nil)
        store.statistics { result in
            if case .failure(let error) = result { reason.withTracedLock { $0 = error.reason } }
        }
        let failure = try #require(eventually { reason.withTracedLock { $0 } })
        #expect(failure.contains("/tmp/todo-***-"), "\(failure)")
        #expect(!failure.contains("hunter2"), "\(failure)")
        let refusal = try #require(store.writeRefusal)
        #expect(!refusal.contains("hunter2"), "\(refusal)")
    }
}
