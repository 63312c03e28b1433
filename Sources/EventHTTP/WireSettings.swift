/// What the loops apply to every connection's wire.
struct WireSettings {
    init(_ configuration: HTTPServerConfiguration) {
        framing = HTTPFraming.Limits(
            maxHeadBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxBodyBytes,
            maxChunkLineBytes: configuration.maxChunkLineBytes)
        budget = ConnectionBudget(
            maxPipelinedRequests: configuration.maxPipelinedRequests, maxOutputBytes: configuration.maxOutputBytes)
        // A whole request fits (a body is handed over once it is complete), plus one socket read.
        inputBytes = configuration.maxHeaderBytes + configuration.maxBodyBytes + Self.readBytes
        timeout = .milliseconds(Int64((configuration.timeoutSeconds * 1000).rounded(.up)))
        bodyRate =
            configuration.minBodyBytesPerSecond > 0
            ? ConnectionMachine.BodyRate(
                bytesPerSecond: configuration.minBodyBytesPerSecond, gracePeriod: configuration.bodyRateGracePeriod)
            : nil
        writesAtTurnEnd = configuration.writesAtTurnEnd
    }

    var framing: HTTPFraming.Limits
    var budget: ConnectionBudget
    /// Most bytes buffered in a connection's input: a whole request (head and largest body).
    var inputBytes: Int
    /// The connection time-out, which also bounds a lingering close.
    var timeout: Duration
    /// The least a request body must average (nil: no minimum).
    var bodyRate: ConnectionMachine.BodyRate?
    /// Whether a loop writes the answers queued in a turn at its end (`ConnectionMachine.WriteTiming`).
    var writesAtTurnEnd: Bool
    /// Bytes asked of the kernel per read.
    static let readBytes = 16 << 10
}
