import Foundation
import Logging
import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The stores the contract suite runs against: one suite, every store.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, journal, postgres

    var testDescription: String { rawValue }

    /// The kinds this machine can run (PostgreSQL needs its binaries; CI always has them).
    static var available: [StoreKind] {
        PostgresTestCluster.isAvailable ? allCases : [.memory, .journal]
    }
}

/// A fresh, empty store of one kind for one test, and what it holds open.
final class ContractStore {
    let store: any TodoStore
    private let directory: DataDirectory?
    private let postgres: PostgresTodoStore?

    /// `feeds`: on the live feed's cluster (`PostgresTestCluster.feeds`); `cluster`: on that one.
    init(_ kind: StoreKind, feeds: Bool = false, cluster: PostgresTestCluster? = nil) async throws {
        switch kind {
        case .memory:
            store = InMemoryTodoStore()
            directory = nil
            postgres = nil
        case .journal:
            let directory = DataDirectory()
            store = try directory.open(fsync: .never)
            self.directory = directory
            postgres = nil
        case .postgres:
            let configuration = try await Self.freshDatabase("contract", feeds: feeds, cluster: cluster)
            let store = try PostgresTodoStore(configuration: configuration)
            self.store = store
            postgres = store
            directory = nil
        }
    }

    deinit {
        (store as? DurableTodoStore)?.close(waitingAtMost: 5)
        postgres?.close()
    }

    /// A new database on the shared test cluster with the schema migrated; its configuration.
    static func freshDatabase(
        _ label: String, timing: PostgresTiming = PostgresTiming(requestTimeout: .seconds(10)), feeds: Bool = false,
        cluster: PostgresTestCluster? = nil
    ) async throws
        -> PostgresConfiguration
    {
        let cluster = try #require(cluster ?? (feeds ? PostgresTestCluster.feeds : PostgresTestCluster.shared))
        let name = try cluster.freshDatabase(label)
        let configuration = PostgresConfiguration(connectionString: cluster.connectionString(database: name), timing: timing)
        try await TodoSchema.migrate(configuration)
        return configuration
    }
}
