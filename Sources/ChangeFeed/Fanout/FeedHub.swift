import CoreMetrics
import LockTracing
import Synchronization

/// What every subscription shares: the count against the limit, the live subscriptions (for
/// shutdown) and the feed's metrics.
public final class FeedHub: Sendable {
    let maxSubscribers: Int
    private let live = Mutex<(count: Int, subscriptions: [ObjectIdentifier: any FeedHubMember], ending: Bool)>((0, [:], false))
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

    func register(_ subscription: any FeedHubMember) {
        live.withTracedLock { $0.subscriptions[ObjectIdentifier(subscription)] = subscription }
    }

    func release(_ subscription: any FeedHubMember) {
        let count = live.withTracedLock { live -> Int in
            if live.subscriptions.removeValue(forKey: ObjectIdentifier(subscription)) != nil { live.count -= 1 }
            return live.count
        }
        subscribersGauge.record(count)
    }

    /// Ends every stream cleanly, each on its loop, and admits no more (a stop).
    public func endAll() {
        let subscriptions = live.withTracedLock { live -> [any FeedHubMember] in
            live.ending = true
            return Array(live.subscriptions.values)
        }
        for subscription in subscriptions { subscription.endFromAnyThread() }
    }
}

/// A subscription as its hub holds it (of a log of any kind of change).
protocol FeedHubMember: AnyObject, Sendable {
    /// Ends the stream cleanly (a stop), on its loop.
    func endFromAnyThread()
}
