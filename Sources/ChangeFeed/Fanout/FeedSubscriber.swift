/// What a subscriber hears, in order.
public enum FeedItem<Kind: RecordedChange>: Sendable, Equatable {
    /// A change, with the position a client resumes after.
    case change(position: String, Kind)
    /// The position asked for is not retained (or not one of this log's): list again; the changes
    /// after `position` follow.
    case resync(position: String)
    /// The subscriber's credential (a JSON Web Token) has expired: the stream ends after this, and
    /// a client with a new credential resumes after `position`.
    case expired(position: String)
}

/// Whether a subscriber takes more now.
public enum FeedDelivery: Sendable, Equatable {
    /// Keep going.
    case more
    /// Its output is full: wait for `FeedSubscription.resume()`.
    case paused
    /// It is gone: stop.
    case closed
    /// Its output passed its bound and it was cut off: stop (it resumes with its last position).
    case cutOff
}

/// A subscription's subscriber (the feed's presenter), fed on its loop's thread.
public protocol FeedSubscriber<Kind>: AnyObject {
    associatedtype Kind: RecordedChange
    /// Takes `item`; it may hold it until `flush()`, which ends every batch of items.
    func receive(_ item: FeedItem<Kind>) -> FeedDelivery
    /// Takes `run`'s items from the first, as many as it does (all of them but when it stops
    /// taking: paused, closed or cut off).
    func receive(run: FeedRun<Kind>) -> FeedRunDelivery
    /// The batch is over: what was received goes out now.
    func flush()
    /// Nothing was sent for a heartbeat interval.
    func heartbeat() -> FeedDelivery
}

/// How much of a run a subscriber took, and whether it takes more.
public struct FeedRunDelivery: Sendable, Equatable {
    /// Items taken, from the first.
    public var taken: Int
    public var delivery: FeedDelivery

    public init(taken: Int, delivery: FeedDelivery) {
        self.taken = taken
        self.delivery = delivery
    }
}

extension FeedSubscriber {
    /// By default a run is received item by item, until one is not taken with `.more`.
    public func receive(run: FeedRun<Kind>) -> FeedRunDelivery {
        receiveEach(of: run)
    }

    /// `run`'s items one by one, until one is not taken with `.more`.
    public func receiveEach(of run: FeedRun<Kind>) -> FeedRunDelivery {
        for (index, item) in run.items.enumerated() {
            let delivery = receive(item)
            if delivery != .more { return FeedRunDelivery(taken: index + 1, delivery: delivery) }
        }
        return FeedRunDelivery(taken: run.items.count, delivery: .more)
    }
}

/// A subscriber that can end its stream cleanly (at a stop).
public protocol FeedEnding: AnyObject {
    func endStream()
}
