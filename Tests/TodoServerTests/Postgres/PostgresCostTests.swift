@testable import PostgresLoop
import Testing
@testable import TodoServer

/// What the store's statements cost PostgreSQL (issue 22): the list is planned once per connection,
/// not on every execution.
@Suite(.enabled(if: PostgresTestCluster.isAvailable))
struct PostgresCostTests {
    let cluster = PostgresTestCluster.shared!

    func freshDatabase(_ label: String) throws -> String {
        let name = "\(label)_\(UInt32.random(in: 0...UInt32.max))"
        try cluster.createDatabase(name)
        return name
    }

    @Test func theSessionSettingsComeFirstSoThatTheConnectionStringsOwnOptionsWin() {
        #expect(PostgresConnection.sessionOptions(nil, statementTimeout: .milliseconds(2200), settings: ["plan_cache_mode": "force_generic_plan"])
            == "-c plan_cache_mode=force_generic_plan -c statement_timeout=2200")
        #expect(PostgresConnection.sessionOptions(
            "-c plan_cache_mode=auto", statementTimeout: .milliseconds(110),
            settings: ["plan_cache_mode": "force_generic_plan", "application_name": "todo server"])
            == #"-c application_name=todo\ server -c plan_cache_mode=force_generic_plan -c plan_cache_mode=auto -c statement_timeout=110"#)
        let configuration = PostgresConfiguration(connectionString: "host=/tmp")
        #expect(PostgresTodoStore.withGenericPlans(configuration).settings == ["plan_cache_mode": "force_generic_plan"])
        var own = configuration
        own.settings["plan_cache_mode"] = "auto"
        #expect(PostgresTodoStore.withGenericPlans(own).settings == ["plan_cache_mode": "auto"])
    }

    @Test func theListStatementIsPlannedOncePerConnection() async throws {
        let database = try freshDatabase("plans")
        let configuration = PostgresTodoStore.withGenericPlans(PostgresConfiguration(
            connectionString: cluster.connectionString(database: database)))
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        try await TodoSchema.migrator.migrate(session.connection)
        #expect(try await session.connection.query("SHOW plan_cache_mode")[0, 0] == "force_generic_plan")
        let statement = TodoSQL.list(TodoSort(.order, descending: false))
        for index in 0..<12 {
            let query = TodoQuery(completed: index % 3 == 0 ? true : nil, titleContains: index % 4 == 0 ? "x" : nil, limit: 20, offset: 0)
            _ = try await session.connection.query(.prepared(statement), TodoSQL.listParameters(query))
        }
        let plans = try await session.connection.query(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1", [statement.name])
        #expect(plans.values == ["12", "0"])
    }
}
