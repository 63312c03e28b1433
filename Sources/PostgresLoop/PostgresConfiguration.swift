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
    /// in its pool's queues for a connection that may take them (`PostgresLoopPool`).
    public var pipelineDepth: Int
    /// The most reads the connection a loop's reads go to holds in flight (`PostgresLoopPool`:
    /// reads stay on one connection while it answers, so it may pipeline more of them: one
    /// backend reads many together, with fewer wake-ups of it and of the loop). Nil: `pipelineDepth`.
    public var readPipelineDepth: Int?

    public init(
        connectionString: String, timing: PostgresTiming = PostgresTiming(), connectionsPerLoop: Int = 2,
        retryLimit: Int = 2, settings: [String: String] = [:], pipelineDepth: Int = 8,
        readPipelineDepth: Int? = nil
    ) {
        self.pipelineDepth = pipelineDepth
        self.readPipelineDepth = readPipelineDepth
        self.connectionString = connectionString
        self.settings = settings
        self.timing = timing
        self.connectionsPerLoop = connectionsPerLoop
        self.retryLimit = retryLimit
    }
}
