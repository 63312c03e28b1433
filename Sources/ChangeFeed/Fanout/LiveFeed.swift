/// A change log's live feed on the server's loops: `subscribe(after:)` hands out a subscription on
/// the calling loop that hears the changes after a position (a resync first when the position is
/// not retained or not one of this log's; the current position when none is given), then every
/// change as it happens, through the loop's fan-out (`FeedLoopFanout`). At most the hub's
/// `maxSubscribers` at once.
public struct LiveFeed<Kind: RecordedChange>: Sendable {
    public let log: ChangeLog<Kind>
    private let scheduler: any FeedScheduler
    private let hub: FeedHub
    private let heartbeat: Duration
    private let batchInterval: Duration
    private let loopSharePercent: Int

    /// `heartbeat`: the longest silence on a subscription before its subscriber's `heartbeat()`.
    /// `batchInterval`: after a batch, changes wait that long and go out together (a change after a
    /// quiet spell at once; zero: each at once). `loopSharePercent`: the most of a loop's time a
    /// pass over its subscribers takes in a write storm (`FanoutPacing`).
    public init(
        log: ChangeLog<Kind>, scheduler: any FeedScheduler, hub: FeedHub, heartbeat: Duration, batchInterval: Duration,
        loopSharePercent: Int
    ) {
        self.log = log
        self.scheduler = scheduler
        self.hub = hub
        self.heartbeat = heartbeat
        self.batchInterval = batchInterval
        self.loopSharePercent = loopSharePercent
    }

    /// A subscription of `subscriber` on the calling loop, not started, after the position `token`
    /// names; it ends after `lifetime` (nil: never; zero or less: at its start). Nil when the hub
    /// holds its most subscribers (or stops), or off every loop.
    public func subscribe(
        after token: String?, lifetime: Duration? = nil, subscriber: any FeedSubscriber<Kind>
    ) -> FeedSubscription<Kind>? {
        guard let loop = scheduler.currentLoop(), hub.admit() else { return nil }
        var start = log.head
        var resync = false
        if let token {
            if let cursor = log.cursor(fromToken: token) { start = cursor } else { resync = true }
        }
        let fanout = hub.fanouts.fanout(of: log, on: loop, batchInterval: batchInterval, loopSharePercent: loopSharePercent)
        return FeedSubscription(
            log: log, loop: loop, fanout: fanout, cursor: start, resyncFirst: resync, subscriber: subscriber, hub: hub,
            heartbeat: heartbeat, lifetime: lifetime)
    }
}
