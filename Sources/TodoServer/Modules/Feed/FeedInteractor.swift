import ChangeFeed
import TodoData

/// The feed's business rules: a subscription starts after the position asked for (every retained
/// change after it, in order), with a resync when that position is not retained or not one of this
/// store's, or at the current position when none is asked for; then it hears every change, and
/// the changes of the caller's owner only; it ends when the caller's credential does. At most
/// `maxSubscribers` at once. Hands out to-dos as values. The engine is `ChangeFeed`'s
/// (`LiveFeed.subscribe(after:)`).
public struct FeedInteractor: Sendable {
    private let log: TodoData.ChangeLog
    /// The store whose owners' logs `owned(by:)` subscribes to (nil: `log` is every change).
    private let store: (any TodoStore)?
    private let scheduler: any FeedScheduler
    private let settings: FeedSettings
    private let hub: FeedHub
    /// The wall clock a credential's expiry is read against.
    private let clock: any TodoClock

    /// `settings`: the heartbeat; `batchInterval` (after a subscriber is sent a batch, changes for
    /// it wait that long and go out together, a change after a quiet spell at once: one write
    /// carries many events when changes come fast); `loopSharePercent` (the most of a loop's time
    /// a pass over its subscribers takes in a write storm: `FanoutPacing`).
    /// `store`: the store `log` is the change log of, whose owners' own logs `owned(by:)` reads.
    public init(
        log: TodoData.ChangeLog, store: (any TodoStore)? = nil, scheduler: any FeedScheduler, hub: FeedHub,
        settings: FeedSettings = .defaults,
        clock: any TodoClock = SystemClock()
    ) {
        self.clock = clock
        self.log = log
        self.store = store
        self.scheduler = scheduler
        self.settings = settings
        self.hub = hub
    }

    /// The same feed carrying `owner`'s changes only (their own change log: nobody else's change is
    /// ever read for them); `Owner.shared`: the shared list's.
    public func owned(by owner: Owner) -> FeedInteractor {
        guard !owner.isShared, let store else { return self }
        return FeedInteractor(
            log: store.owned(by: owner).changes, store: store, scheduler: scheduler, hub: hub, settings: settings, clock: clock)
    }

    /// The current position (what `GET /todos` reports when its store cannot say).
    public var currentPosition: String { log.headToken }

    /// A subscription of `subscriber` on the calling loop, not started: once `start()`ed it hears
    /// the changes after the request's position (or a resync), then every change as it happens,
    /// until the request's credential expires. Nil when the server holds its most subscribers (or
    /// is stopping, or this is no loop).
    public func subscribe(_ request: FeedRequest, subscriber: any FeedSubscriber<StoreChangeKind>) -> FeedSubscription? {
        // A credential that has expired already ends the stream at its first turn.
        let lifetime = request.expiresAt.map { expiry in
            Duration.milliseconds(max(0, expiry.millisecondsSinceEpoch - clock.now().millisecondsSinceEpoch))
        }
        let feed = LiveFeed(
            log: log, scheduler: scheduler, hub: hub, heartbeat: settings.heartbeat, batchInterval: settings.batchInterval,
            loopSharePercent: settings.loopSharePercent)
        return feed.subscribe(after: request.lastEventID, lifetime: lifetime, subscriber: subscriber)
    }
}
