/// How to reach PostgreSQL and how patiently.
///
/// The connection string (`host=/run/postgresql dbname=todo user=todo` or
/// `postgresql://todo@127.0.0.1:5432/todo`) must not need a DNS lookup: libpq resolves host names
/// synchronously inside its connect call, which would block an event loop. Use a unix-socket
/// directory (`host=/path`), a numeric address (`host=10.0.0.5`, `[::1]` in a URI), or `hostaddr=`
/// next to `host=` (the name is then kept only for TLS and Kerberos). `validated()` checks this.
public struct PostgresConfiguration: Sendable, Equatable {
    public var connectionString: String
    public var timing: PostgresTiming
    /// Connections each event loop keeps to the database.
    public var connectionsPerLoop: Int
    /// Server settings for each session (`-c name=value` in libpq's `options`); the connection
    /// string's own `options` override them.
    public var settings: [String: String]
    /// How many times a request is sent again after a serialization failure (40001) or a deadlock
    /// (40P01), the only failures that certainly did not commit.
    public var retryLimit: Int
    /// The most requests one connection holds in flight (pipelined); past it, a loop's requests wait
    /// in its pool's queue for the first connection with room (`PostgresLoopPool`).
    public var pipelineDepth: Int

    public init(
        connectionString: String, timing: PostgresTiming = PostgresTiming(), connectionsPerLoop: Int = 2,
        retryLimit: Int = 2, settings: [String: String] = [:], pipelineDepth: Int = 8
    ) {
        self.pipelineDepth = pipelineDepth
        self.connectionString = connectionString
        self.settings = settings
        self.timing = timing
        self.connectionsPerLoop = connectionsPerLoop
        self.retryLimit = retryLimit
    }
}
