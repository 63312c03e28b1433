import CoreMetrics
import LockTracing
import Synchronization

/// The feed's business rules: a subscription starts after the position asked for (every retained
/// change after it, in order), with a resync when that position is not retained or not one of this
/// store's, or at the current position when none is asked for; then it hears every change. At most
/// `maxSubscribers` at once. Hands out to-dos as values.
public struct FeedInteractor: Sendable {
    private let log: ChangeLog
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
        log: ChangeLog, store: (any TodoStore)? = nil, scheduler: any FeedScheduler, hub: FeedHub, settings: FeedSettings = .defaults,
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
    /// the changes after the request's position (or a resync), then every change as it happens.
    /// Nil when the server holds its most subscribers (or is stopping, or this is no loop).
    public func subscribe(_ request: FeedRequest, subscriber: any FeedSubscriber) -> FeedSubscription? {
        guard let loop = scheduler.currentLoop(), hub.admit() else { return nil }
        var start = log.head
        var resync = false
        if let token = request.lastEventID {
            if let cursor = log.cursor(fromToken: token) { start = cursor } else { resync = true }
        }
        let fanout = hub.fanouts.fanout(
            of: log, on: loop, batchInterval: settings.batchInterval, loopSharePercent: settings.loopSharePercent)
        // A credential that has expired already ends the stream at its first turn.
        let lifetime = request.expiresAt.map { expiry in
            Duration.milliseconds(max(0, expiry.millisecondsSinceEpoch - clock.now().millisecondsSinceEpoch))
        }
        return FeedSubscription(
            log: log, loop: loop, fanout: fanout, cursor: start, resyncFirst: resync, subscriber: subscriber, hub: hub,
            heartbeat: settings.heartbeat, lifetime: lifetime)
    }
}

/// What every subscription shares: the count against the limit, the live subscriptions (for
/// shutdown) and the feed's metrics.
public final class FeedHub: Sendable {
    let maxSubscribers: Int
    private let live = Mutex<(count: Int, subscriptions: [ObjectIdentifier: FeedSubscription], ending: Bool)>((0, [:], false))
    let subscribersGauge: CoreMetrics.Gauge
    let eventsSent: CoreMetrics.Counter
    let resyncs: CoreMetrics.Counter
    let cutOffs: CoreMetrics.Counter
    /// The log's fan-out on each loop (one hub per log).
    let fanouts = FeedLoopFanouts()

    public init(maxSubscribers: Int, factory: any MetricsFactory) {
        self.maxSubscribers = maxSubscribers
        subscribersGauge = CoreMetrics.Gauge(label: "feed_subscribers", factory: factory)
        eventsSent = CoreMetrics.Counter(label: "feed_events_sent_total", factory: factory)
        resyncs = CoreMetrics.Counter(label: "feed_resyncs_total", factory: factory)
        cutOffs = CoreMetrics.Counter(label: "feed_subscribers_cut_off_total", factory: factory)
        subscribersGauge.record(0)
    }

    /// Subscriptions open now.
    public var subscriberCount: Int { live.withTracedLock { $0.count } }

    /// Counts a new subscriber in, unless the limit is reached or the server is stopping.
    func admit() -> Bool {
        let count = live.withTracedLock { live -> Int? in
            guard live.count < maxSubscribers, !live.ending else { return nil }
            live.count += 1
            return live.count
        }
        guard let count else { return false }
        subscribersGauge.record(count)
        return true
    }

    func register(_ subscription: FeedSubscription) {
        live.withTracedLock { $0.subscriptions[ObjectIdentifier(subscription)] = subscription }
    }

    func release(_ subscription: FeedSubscription) {
        let count = live.withTracedLock { live -> Int in
            if live.subscriptions.removeValue(forKey: ObjectIdentifier(subscription)) != nil { live.count -= 1 }
            return live.count
        }
        subscribersGauge.record(count)
    }

    /// Ends every stream cleanly, each on its loop, and admits no more (a stop).
    public func endAll() {
        let subscriptions = live.withTracedLock { live -> [FeedSubscription] in
            live.ending = true
            return Array(live.subscriptions.values)
        }
        for subscription in subscriptions { subscription.endFromAnyThread() }
    }
}

/// One subscriber's place in the change order. Lives on its loop's thread but for `endFromAnyThread`,
/// which hops there.
public final class FeedSubscription: @unchecked Sendable {
    /// Changes read from the log per step.
    static let batch = 64

    private let log: ChangeLog
    private let loop: any FeedLoop
    private let hub: FeedHub
    private var subscriber: (any FeedSubscriber)?
    private var cursor: ChangeCursor
    private var resyncFirst: Bool
    private var paused = false
    /// Resumed: the next pass sends what waits.
    private var resuming = false
    private var ended = false
    private let fanout: FeedLoopFanout
    private var timer: (any FeedTimer)?
    private let heartbeat: Duration
    private var started = false
    /// How long the subscriber's credential lasts from the subscription on (nil: for good), and
    /// the timer that ends the stream then.
    private let lifetime: Duration?
    private var expiry: (any FeedTimer)?

    init(
        log: ChangeLog, loop: any FeedLoop, fanout: FeedLoopFanout, cursor: ChangeCursor, resyncFirst: Bool,
        subscriber: any FeedSubscriber, hub: FeedHub, heartbeat: Duration, lifetime: Duration? = nil
    ) {
        self.lifetime = lifetime
        self.fanout = fanout
        self.log = log
        self.loop = loop
        self.cursor = cursor
        self.resyncFirst = resyncFirst
        self.subscriber = subscriber
        self.hub = hub
        self.heartbeat = heartbeat
        hub.register(self)
    }

    /// Sends what the subscriber missed, then every change; heartbeats from now on.
    public func start() {
        guard !started, !ended else { return }
        started = true
        fanout.add(self)
        timer = loop.repeating(every: heartbeat) { [weak self] in self?.beat() }
        // A token past its exp (accepted within the leeway) reads nothing: `expired` at once.
        if let lifetime, lifetime <= .zero { return expire() }
        if let lifetime { expiry = loop.repeating(every: lifetime) { [weak self] in self?.expire() } }
        pull()
    }

    /// The credential has expired: after what was sent, an `expired` item at the position reached,
    /// then the stream ends (cleanly: the client may resume there with a new credential).
    private func expire() {
        expiry?.cancel()
        expiry = nil
        guard !ended, let subscriber else { return }
        _ = subscriber.receive(.expired(position: cursor.token(tag: log.tag)))
        subscriber.flush()
        end(cutOff: false)
        (subscriber as? FeedEnding)?.endStream()
    }

    /// Whether the subscription still runs.
    public var isActive: Bool { !ended }

    /// The object of `Value`'s type that every subscription on this one's loop shares (made by
    /// `make` on first use); use it on the loop's thread only.
    public func loopShared<Value: AnyObject>(_ make: () -> Value) -> Value {
        loop.shared(make)
    }

    /// The output drained: send what waits.
    /// What waits goes out in the loop's next pass, as changes do: passes keep to their share of
    /// the loop (`FeedSettings.loopSharePercent`), and a thousand streams refilled as each drains would
    /// not. The subscription counts as paused until then.
    public func resume() {
        guard paused, !ended, !resuming else { return }
        resuming = true
        fanout.wake()
    }

    /// The subscriber is gone (its connection closed).
    /// `cutOff`: it left with output it had not read (a paused one always has).
    public func cancel(cutOff: Bool = false) {
        end(cutOff: paused || cutOff)
    }

    /// On the loop, in a pass of the loop's fan-out: changes came, or a `resume()` asked for the
    /// pass. Sends at most one batch, so that a subscriber far behind costs a pass no more than one
    /// that keeps up; returns whether more waits (the fan-out then passes again).
    func changed() -> Bool {
        if resuming {
            resuming = false
            paused = false
        }
        return pull(batches: 1)
    }

    /// Ends the stream cleanly (a stop), on its loop.
    func endFromAnyThread() {
        loop.execute { [self] in
            guard !ended else { return }
            let subscriber = self.subscriber
            end(cutOff: false)
            (subscriber as? FeedEnding)?.endStream()
        }
    }

    private func beat() {
        guard !paused, !ended, let subscriber else { return }
        switch subscriber.heartbeat() {
        case .more: break
        case .paused: paused = true
        case .closed: end(cutOff: false)
        case .cutOff: end(cutOff: true)
        }
    }

    /// Sends the changes after the cursor until caught up, paused or closed, or `batches` batches
    /// of them have gone, as one write; returns whether more may wait.
    @discardableResult
    private func pull(batches: Int = .max) -> Bool {
        guard started, !paused, !ended else { return false }
        defer { subscriber?.flush() }
        if resyncFirst {
            resyncFirst = false
            cursor = log.head
            hub.resyncs.increment()
            guard deliver(.resync(position: cursor.token(tag: log.tag))) else { return false }
        }
        var left = batches
        while true {
            switch fanout.read(after: cursor, limit: Self.batch) {
            case .resync(let head):
                cursor = head
                hub.resyncs.increment()
                guard deliver(.resync(position: head.token(tag: log.tag))) else { return false }
            case .run(let run):
                // Nothing to send, but maybe changes skipped (seen already): never looked at again.
                guard !run.items.isEmpty else {
                    cursor = run.end
                    return false
                }
                guard let subscriber else { return false }
                let answer = subscriber.receive(run: run)
                if answer.taken == run.items.count {
                    cursor = run.end
                } else if answer.taken > 0 {
                    cursor = run.cursors[answer.taken - 1]
                }
                // The item that found the subscriber gone or cut it off was not sent.
                let sent = answer.delivery == .more || answer.delivery == .paused ? answer.taken : answer.taken - 1
                if sent > 0 { hub.eventsSent.increment(by: sent) }
                guard carriesOn(after: answer.delivery) else { return false }
                if run.items.count < Self.batch { return false }
                left -= 1
                if left == 0 { return true }
            }
        }
    }

    /// Hands `item` over; false when the subscription stops taking more for now.
    private func deliver(_ item: FeedItem) -> Bool {
        guard let subscriber else { return false }
        return carriesOn(after: subscriber.receive(item))
    }

    /// Whether the subscription takes more after `delivery` (else it is paused or has ended).
    private func carriesOn(after delivery: FeedDelivery) -> Bool {
        switch delivery {
        case .more: return true
        case .paused:
            paused = true
            return false
        case .closed:
            end(cutOff: false)
            return false
        case .cutOff:
            end(cutOff: true)
            return false
        }
    }

    private func end(cutOff: Bool) {
        guard !ended else { return }
        ended = true
        fanout.remove(self)
        timer?.cancel()
        timer = nil
        expiry?.cancel()
        expiry = nil
        subscriber = nil
        if cutOff { hub.cutOffs.increment() }
        hub.release(self)
    }

}

/// A subscriber that can end its stream cleanly (at a stop).
public protocol FeedEnding: AnyObject {
    func endStream()
}

extension FeedChange {
    init(_ kind: StoreChangeKind) {
        switch kind {
        case .created(let todo): self = .created(todo)
        case .updated(let todo): self = .updated(todo)
        case .deleted(let id): self = .deleted(id: id)
        case .cleared: self = .cleared
        }
    }
}
