import Glibc
import Logging
import TodoData

/// Every setting of the server, with the defaults that `Config/todo-server.json` also lists.
public struct ServerConfiguration: Sendable, Equatable {
    /// Loopback unless configured: the container image sets 0.0.0.0.
    public var host = "127.0.0.1"
    public var port = 8080
    /// Event-loop threads; 0 means one per core.
    public var threads = 0
    public var maxBodyBytes = 1 << 20
    /// Request line plus header fields; larger ones get a 431.
    public var maxHeaderBytes = 32 << 10
    /// Header fields in one request; more get a 431.
    public var maxHeaderCount = 100
    /// Open connections; requests on connections beyond it get a 503 and the connection closes.
    public var maxConnections = 10_000
    public var maxURIBytes = 8 << 10
    /// Read and write time-out of a connection; idle and slow clients are closed after it.
    public var timeoutSeconds = 30
    /// `*` or a comma-separated list of origins (`https://a.example, null`).
    public var corsOrigin = "*"
    /// `Access-Control-Allow-Credentials: true` for listed origins (refused with `*`).
    public var corsCredentials = false
    public var corsMaxAgeSeconds = 86_400
    /// Scheme, host and port for absolute URLs (`https://todo.example.com`); nil: from `Host`.
    public var publicURL: String?
    /// IANA time zone the upcoming view uses when the request names none.
    public var timeZone = "UTC"
    public var logLevel = Logger.Level.info
    /// How long shutdown waits for requests in flight.
    public var shutdownGraceSeconds = 10
    /// Directory of the journal and snapshots; nil keeps the to-dos in memory only.
    public var dataDirectory: String?
    /// A libpq connection string or URI of the PostgreSQL database that keeps the to-dos; nil keeps
    /// them in memory (or in `dataDirectory`). Its host must need no DNS lookup.
    public var databaseURL: String?
    /// Connections each event loop keeps to the database.
    public var databaseConnectionsPerLoop = 2
    /// Requests one database connection holds in flight (pipelined) before the loop's others wait
    /// in its queues (reads for its first connection while that answers, writes for any with room).
    public var databasePipelineDepth = 8
    /// Reads the connection a loop's reads go to holds in flight (they stay on it while it answers).
    public var databaseReadPipelineDepth = 32
    /// The most to-dos one insert statement makes when POSTs wait for a loop's connections (1: each
    /// alone).
    public var databaseInsertBatch = StoreDefaults.databaseInsertBatch
    /// How long a loop's first database connection, full of reads, may go without an answer before
    /// reads go to its next connection (`PostgresTiming.readSpillAfter`; 0: to any with room).
    public var databaseReadSpillMilliseconds = 20
    /// How long a request waits for the database before it gets a 503 with `Retry-After`.
    public var databaseTimeoutMs = 2000
    /// How long `DELETE /todos` waits for the to-do table's lock (for writes in progress to end)
    /// before it gets a 503 with `Retry-After` (`TodoSQL+RemoveAll.swift`; 0: up to the deadline).
    public var databaseClearLockWaitMilliseconds = 1000
    /// When journal writes are forced to disk (with a data directory).
    public var fsync = FsyncPolicy.interval
    /// Journal size at which it is compacted into a snapshot.
    public var compactionBytes = 64 << 20
    /// What start-up does with a damaged or missing journal or snapshot file: refuse (`off`), or
    /// keep what comes before the damage and move the damaged files aside (`truncate`).
    public var recovery = RecoveryMode.off
    /// Bearer tokens that may read and write; with `readTokens` empty too, no token is needed.
    public var authTokens: [String] = []
    /// Bearer tokens that may only read (GET, HEAD).
    public var readTokens: [String] = []
    /// Owner tokens: each reads and writes its owner's to-dos only (`ownerTokens`, `ownerTokensFile`).
    public var ownerTokens: [OwnerToken] = []
    /// A JWK Set file whose keys sign the JSON Web Tokens this server accepts (`jwtJwksFile`);
    /// read again when it changes. Nil: no JWTs.
    public var jwtJwksFile: String?
    /// The URL of the provider's JWK Set (`jwtJwksUrl`): fetched over HTTPS at start and refreshed.
    /// Nil, with `jwtJwksFile` nil too: no JWTs.
    public var jwtJwksUrl: String?
    /// The certificate authorities trusted for `jwtJwksUrl` (a PEM file); nil: the system's.
    public var jwtJwksCaFile: String?
    /// The least time between two fetches of `jwtJwksUrl`, in seconds (an unknown `kid` fetches
    /// again at most this often).
    public var jwtJwksMinRefreshSeconds = 30
    /// The longest one fetch of `jwtJwksUrl` takes, in seconds.
    public var jwtJwksTimeoutSeconds = 10
    /// The `iss` a JWT must carry (required with `jwtJwksFile` or `jwtJwksUrl`).
    public var jwtIssuer: String?
    /// The audience a JWT's `aud` must name (required with `jwtJwksFile` or `jwtJwksUrl`).
    public var jwtAudience: String?
    /// The claim that names a JWT's owner.
    public var jwtOwnerClaim = "sub"
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
    public var jwtLeewaySeconds = 60
    /// Whether `/metrics` answers without a token when tokens are on.
    public var metricsPublic = false
    /// `text` (one line per event) or `json` (one JSON object per line).
    public var logFormat = LogFormat.text
    /// Log lines waiting for standard output, in bytes; lines past it are dropped and counted.
    public var logBufferBytes = 1 << 20
    /// Longest wait, in milliseconds, before queued log lines are written as one batch; 0 writes
    /// each line as soon as the writer thread runs.
    public var logFlushMilliseconds = 20
    /// Where the values came from: the file read and the source of each key that was set.
    public var provenance = ConfigurationProvenance()
    /// Requests one connection may have received and not yet had answered before the server stops
    /// reading it (pipelining depth).
    public var maxPipelinedRequests = 32
    /// Answer bytes one connection's client may leave unread before the server stops reading it.
    public var maxOutputBytes = 1 << 20
    /// The least a request body must average, in bytes per second, once `bodyRateGraceSeconds`
    /// have passed since its head; a slower one gets a 408 and the connection closes. 0: no minimum.
    public var minBodyBytesPerSecond = 240
    /// Seconds from a request's head during which its body may be slower than `minBodyBytesPerSecond`.
    public var bodyRateGraceSeconds = 5
    /// Whether each event loop writes the answers of one turn (one poll's ready connections)
    /// together at the turn's end, so that a client with many connections is woken once for many
    /// answers; false writes each connection's answers as soon as it has them.
    public var writeAtTurnEnd = true
    /// Changes kept for the live feed's replay (`Last-Event-ID`); older positions get a resync.
    public var eventsRetained = StoreDefaults.eventsRetained
    /// Longest silence on a live feed stream before a `: keep-alive` comment.
    public var eventsHeartbeatSeconds = 15
    /// Live feed streams the server holds at once (each also counts as a connection); more get 503.
    public var eventsMaxSubscribers = 1_000
    /// Unsent bytes of one feed stream before its subscriber is cut off (it resumes with
    /// `Last-Event-ID`).
    public var eventsMaxBufferedBytes = 256 << 10
    /// How long, in milliseconds, changes wait after a feed stream was sent a batch, so that one
    /// write carries many events when changes come fast (a change after a quiet spell goes at
    /// once); 0 sends each change at once.
    public var eventsBatchMilliseconds = 10
    /// The most of a loop's time the live feed takes in a write storm (changes coming faster than
    /// a pass sends them: each slice is followed by a rest); requests get the rest.
    public var eventsLoopSharePercent = 5
    /// How often, in milliseconds, an instance reads the changes other instances made (with
    /// `databaseUrl`).
    public var eventsPollMilliseconds = StoreDefaults.eventsPollMilliseconds
    /// The least time, in milliseconds, between two reads of the change table (with
    /// `databaseUrl`): under a stream of writes a read takes the changes of that time together;
    /// a change after a quiet spell is read at once. 0 reads after every write.
    public var eventsReadGapMilliseconds = StoreDefaults.eventsReadGapMilliseconds

    public init() {}

    /// Every setting at its default: where a component made without a configuration (a tool, a
    /// test) takes its defaults from, so that each default is written once, above.
    public static let defaults = ServerConfiguration()

    /// Whether requests need a bearer token.
    public var requiresTokens: Bool { !authTokens.isEmpty || !readTokens.isEmpty || hasOwners }

    /// Whether requests may act on owners' lists (owner tokens or JSON Web Tokens are configured).
    public var hasOwners: Bool { !ownerTokens.isEmpty || acceptsJWTs }

    /// Whether JSON Web Tokens are accepted (a JWK Set file or URL is configured).
    public var acceptsJWTs: Bool { jwtJwksFile != nil || jwtJwksUrl != nil }

    /// Where the JWK Set comes from when it is fetched from `jwtJwksUrl`.
    var jwtKeySetURL: JWKSURLSource.Settings? {
        jwtJwksUrl.map { url in
            JWKSURLSource.Settings(
                url: url, caFile: jwtJwksCaFile, minRefreshSeconds: jwtJwksMinRefreshSeconds, timeoutSeconds: jwtJwksTimeoutSeconds)
        }
    }

    /// The JWT verifier's settings, nil without JWTs.
    public var jwtVerification: JWTVerifier.Configuration? {
        guard acceptsJWTs, let jwtIssuer, let jwtAudience else { return nil }
        return JWTVerifier.Configuration(
            issuer: jwtIssuer, audience: jwtAudience, ownerClaim: jwtOwnerClaim, leewaySeconds: jwtLeewaySeconds)
    }

    /// The thread count to run: `threads`, or the number of cores when it is 0.
    public var effectiveThreads: Int {
        threads > 0 ? threads : max(1, System.coreCount)
    }

    /// The head limit of the wire's framing: twice the configured one (at least 16 KiB more), so
    /// that headers just over the configured limit reach the router, which answers its 431 with
    /// the request's CORS headers; past it the framing refuses the stream (431, connection closed).
    public var hardHeaderLimit: Int {
        max(maxHeaderBytes * 2, maxHeaderBytes + (16 << 10))
    }
}

/// Facts about the machine the server runs on.
enum System {
    static var coreCount: Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
