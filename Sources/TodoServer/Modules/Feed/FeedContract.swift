import ChangeFeed
import TodoData

// The live change feed module (`GET /todos/events`): Server-Sent Events of every change to the
// store, resumable from any position the store still retains. The router hands the request to the
// view, which decodes it into a `FeedRequest`, opens the stream and hands itself (as
// `FeedDisplay`) to the presenter; the presenter subscribes through the interactor and turns what
// it hears into events; the interactor reads the store's change log through the live feed's
// engine (`ChangeFeed`: `LiveFeed.subscribe(after:)`) and knows nothing of HTTP.

/// Where a subscriber wants to start: after the position a client last saw (`Last-Event-ID`, or
/// `lastEventId=`), or at the current position (nil).
public struct FeedRequest: Sendable, Equatable {
    public var lastEventID: String?
    /// The client asked for `text/event-stream` (as `EventSource` does): a refusal comes as a
    /// stream that says when to retry, since an `EventSource` that gets an error status stops.
    public var acceptsEventStream: Bool

    /// When the subscriber's credential ends (a JSON Web Token's `exp`): the stream ends then
    /// with an `expired` item, so that nobody reads past their token's life. Nil: it does not.
    public var expiresAt: Timestamp?

    public init(lastEventID: String? = nil, acceptsEventStream: Bool = false, expiresAt: Timestamp? = nil) {
        self.lastEventID = lastEventID
        self.acceptsEventStream = acceptsEventStream
        self.expiresAt = expiresAt
    }
}

/// A change as the interactor hands it out: the store's.
public typealias FeedChange = StoreChangeKind

/// What a subscriber hears, in order (`ChangeFeed.FeedItem` of the store's changes).
public typealias FeedItem = ChangeFeed.FeedItem<StoreChangeKind>

/// Changes after one cursor as the subscriptions at that cursor on one loop hear them.
public typealias FeedRun = ChangeFeed.FeedRun<StoreChangeKind>

/// One subscriber's place in the store's change order.
public typealias FeedSubscription = ChangeFeed.FeedSubscription<StoreChangeKind>

/// One SSE event as the view writes it.
public struct FeedEventViewModel: Sendable, Equatable {
    public var id: String
    public var event: String
    /// The `data:` line's JSON (no line breaks).
    public var data: [UInt8]
}

/// Events in the stream's wire form, as the view encodes them (one, or a run of them one after
/// the other): encoded once, they can be sent to every subscriber on a loop.
public struct FeedEncodedEvent: Sendable, Equatable {
    public let bytes: [UInt8]
}

/// The view as the presenter sees it: an open event stream.
public protocol FeedDisplay: AnyObject {
    /// Queues an event; it goes out by `displayFlush()` at the latest (earlier when much is queued).
    func displayEvent(_ model: FeedEventViewModel) -> FeedDelivery
    /// `model` in the stream's wire form.
    func encodeEvent(_ model: FeedEventViewModel) -> FeedEncodedEvent
    /// Queues an event encoded by `encodeEvent` (of this or another subscriber's display).
    func displayEncodedEvent(_ event: FeedEncodedEvent) -> FeedDelivery
    /// Sends the queued events together.
    func displayFlush()
    /// A comment line (`: keep-alive`).
    func displayComment(_ text: String) -> FeedDelivery
    /// The `retry:` hint, in milliseconds.
    func displayRetry(milliseconds: Int) -> FeedDelivery
    /// Ends the stream cleanly (shutdown).
    func displayEnd()
    /// Closes the connection at once (a subscriber cut off).
    func displayCutOff()
    /// Whether the stream's last write left bytes the client had not taken.
    var hasUnsentOutput: Bool { get }
}
