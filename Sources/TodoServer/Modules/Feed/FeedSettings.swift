/// The live feed's settings, from `ServerConfiguration`.
public struct FeedSettings: Sendable, Equatable {
    /// Longest silence on a stream before a keep-alive comment.
    public var heartbeat: Duration
    /// Unsent bytes of one stream at which its subscriber is cut off.
    public var maxBufferedBytes: Int
    /// How long changes wait after a batch was sent (zero: each at once).
    public var batchInterval: Duration
    /// The most of a loop's time a pass takes once its slices take long, in percent.
    public var loopSharePercent: Int

    public init(
        heartbeat: Duration = .seconds(15), maxBufferedBytes: Int = 256 << 10,
        batchInterval: Duration = FeedSubscription.defaultBatchInterval, loopSharePercent: Int = 10
    ) {
        self.heartbeat = heartbeat
        self.maxBufferedBytes = maxBufferedBytes
        self.batchInterval = batchInterval
        self.loopSharePercent = loopSharePercent
    }

    /// The configured heartbeat, but at most half the connection time-out: a stream the heartbeat
    /// keeps writing to is never taken for an idle connection.
    public init(configuration: ServerConfiguration) {
        let heartbeat = min(configuration.eventsHeartbeatSeconds * 1000, max(500, configuration.timeoutSeconds * 500))
        self.init(
            heartbeat: .milliseconds(heartbeat), maxBufferedBytes: configuration.eventsMaxBufferedBytes,
            batchInterval: .milliseconds(configuration.eventsBatchMilliseconds),
            loopSharePercent: configuration.eventsLoopSharePercent)
    }
}
