import LockTracing
import Synchronization

/// One subscriber's place in the change order. Lives on its loop's thread but for `endFromAnyThread`,
/// which hops there.
public final class FeedSubscription<Kind: RecordedChange>: FeedHubMember, @unchecked Sendable {
    /// Changes read from the log per step.
    public static var batch: Int { 64 }

    private let log: ChangeLog<Kind>
    private let loop: any FeedLoop
    private let hub: FeedHub
    private var subscriber: (any FeedSubscriber<Kind>)?
    private var cursor: ChangeCursor
    private var resyncFirst: Bool
    private var paused = false
    /// Resumed: the next pass sends what waits.
    private var resuming = false
    private var ended = false
    private let fanout: FeedLoopFanout<Kind>
    private var timer: (any FeedTimer)?
    private let heartbeat: Duration
    private var started = false
    /// How long the subscriber's credential lasts from the subscription on (nil: for good), and
    /// the timer that ends the stream then.
    private let lifetime: Duration?
    private var expiry: (any FeedTimer)?

    init(
        log: ChangeLog<Kind>, loop: any FeedLoop, fanout: FeedLoopFanout<Kind>, cursor: ChangeCursor, resyncFirst: Bool,
        subscriber: any FeedSubscriber<Kind>, hub: FeedHub, heartbeat: Duration, lifetime: Duration? = nil
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
    private func deliver(_ item: FeedItem<Kind>) -> Bool {
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
