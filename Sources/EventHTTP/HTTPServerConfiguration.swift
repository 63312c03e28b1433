/// Socket, loop and wire limits for an `HTTPServer`.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind (`0.0.0.0`, `::`, `127.0.0.1`, a host name).
    public var host: String
    /// Port to bind; 0 picks a free one, reported by `HTTPServer.start()`.
    public var port: Int
    /// Number of event-loop threads, each with its own listener on the port (`SO_REUSEPORT`).
    public var loopCount: Int
    /// Largest request line plus header block read (the framing answers 431 past it).
    public var maxHeaderBytes: Int
    /// Read and write time-out of a connection, in seconds: idle or slow clients are closed.
    public var timeoutSeconds: Double
    /// Listen backlog of each listener.
    public var backlog: Int
    /// Open connections the server holds; requests on connections beyond it are refused.
    public var maxConnections: Int
    /// How long a loop stops accepting after `accept(2)` fails for want of descriptors (EMFILE,
    /// ENFILE) before it tries again.
    public var acceptRetryInterval: Duration = .milliseconds(100)
    /// At most one log line per this interval while accepting stays paused.
    public var acceptLogInterval: Duration = .seconds(1)
    /// Largest request body: a larger declared (or chunked) body is refused with 413 before it is read.
    public var maxBodyBytes: Int
    /// Longest chunk-size line (with extensions) of a chunked body.
    public var maxChunkLineBytes: Int
    /// Requests received on one connection and not answered yet before the server stops reading it.
    public var maxPipelinedRequests: Int
    /// Answer bytes a connection's client has not taken yet before the server stops reading it.
    public var maxOutputBytes: Int
    /// The least a request body must average, in bytes per second, once `bodyRateGracePeriod` has
    /// passed since its head: a slower body is refused with 408 and the connection closed (a body
    /// that trickles in would otherwise hold its connection for ever, each byte resetting the
    /// time-out). 0: no minimum. The default is Kestrel's `MinRequestBodyDataRate`.
    public var minBodyBytesPerSecond = 240
    /// How long from a request's head its body may be slower than `minBodyBytesPerSecond`.
    public var bodyRateGracePeriod: Duration = .seconds(5)
    /// Whether each loop writes the answers its connections queue in one turn (one poll's events)
    /// together at the end of that turn, so that a client with many connections wakes once for
    /// many answers; false writes each connection's as soon as its callback queued them. An
    /// answer waits at most for the rest of its turn. Streamed answers are written as their
    /// writer flushes either way, but for their last chunk.
    public var writesAtTurnEnd = true

    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        loopCount: Int = 1,
        maxHeaderBytes: Int = 32 << 10,
        timeoutSeconds: Double = 30,
        backlog: Int = 1024,
        maxConnections: Int = 10_000,
        maxBodyBytes: Int = 1 << 20,
        maxChunkLineBytes: Int = 4096,
        maxPipelinedRequests: Int = 32,
        maxOutputBytes: Int = 1 << 20
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
        self.maxPipelinedRequests = maxPipelinedRequests
        self.maxOutputBytes = maxOutputBytes
        self.maxConnections = maxConnections
        self.host = host
        self.port = port
        self.loopCount = loopCount
        self.maxHeaderBytes = maxHeaderBytes
        self.timeoutSeconds = timeoutSeconds
        self.backlog = backlog
    }
}
