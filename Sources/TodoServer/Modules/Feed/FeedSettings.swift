/// The live feed's settings, from `ServerConfiguration` (where each one's default is written, once).
public struct FeedSettings: Sendable, Equatable {
    /// Longest silence on a stream before a keep-alive comment.
    public var heartbeat: Duration
    /// Unsent bytes of one stream at which its subscriber is cut off.
    public var maxBufferedBytes: Int
    /// How long changes wait after a batch was sent (zero: each at once).
    public var batchInterval: Duration
    /// The most of a loop's time a pass takes once its slices take long, in percent.
    public var loopSharePercent: Int

    /// The settings of a server configured with the defaults.
    public static let defaults = FeedSettings(configuration: .defaults)

    /// The settings given, and the defaults' for the others.
    public init(
        heartbeat: Duration = defaults.heartbeat, maxBufferedBytes: Int = defaults.maxBufferedBytes,
        batchInterval: Duration = defaults.batchInterval, loopSharePercent: Int = defaults.loopSharePercent
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
