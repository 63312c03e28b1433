import ChangeFeed
import HTTPValues
import TodoData

/// Turns the interactor's changes into events: `created`/`updated` carry the to-do as
/// `GET /todos/{id}` shows it and its entity tag, `deleted` its id, `cleared` nothing, `resync`
/// nothing; each with the position to resume after. A `retry:` hint first; a comment per heartbeat.
public struct FeedPresenter: Sendable {
    private let interactor: FeedInteractor
    /// `retry:`, in milliseconds.
    public static let retryMilliseconds = 2_000
    /// When a refused subscriber should try again, in milliseconds.
    public static let refusalRetryMilliseconds = 5_000
    static let streamHeaders: HTTPHeaders = [
        "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no",
    ]

    public init(interactor: FeedInteractor) {
        self.interactor = interactor
    }

    /// Subscribes, opens the stream through `view` and starts; a 503 when the server holds its
    /// most subscribers (or is stopping).
    public func presentSubscription(_ request: FeedRequest, context: RequestContext, view: some FeedStreamDisplay) {
        let session = FeedSession(baseURL: context.baseURL)
        var request = request
        request.expiresAt = context.credentialExpiry
        guard let subscription = interactor.owned(by: context.owner).subscribe(request, subscriber: session) else {
            // An `EventSource` that gets an error status gives up for good (browsers ignore
            // `Retry-After`): an event-stream client gets a stream that only says when to retry.
            if request.acceptsEventStream,
                let display = view.displayStream(headers: Self.streamHeaders, events: { _ in })
            {
                _ = display.displayRetry(milliseconds: Self.refusalRetryMilliseconds)
                _ = display.displayComment("too many subscribers or stopping: retry")
                return display.displayEnd()
            }
            let problem = ProblemDetails(
                status: 503, title: "Service Unavailable",
                detail: "This server holds as many live feed subscribers as it may, or is stopping: try again later.")
            var headers: HTTPHeaders = [:]
            headers.setRetryAfter(seconds: Self.refusalRetryMilliseconds / 1000)
            return view.displayProblem(ResponseViewModel(problem: problem, headers: headers))
        }
        guard
            let display = view.displayStream(
                headers: Self.streamHeaders,
                // The session weakly: it holds the display, which holds the connection that holds
                // this handler (the subscription lets go of the session when it ends).
                events: { [weak session] event in
                    switch event {
                    case .drained: subscription.resume()
                    // A stream closed with output the client had not taken (the connection's
                    // time-out for a client that does not read) was cut off.
                    case .closed: subscription.cancel(cutOff: session?.display?.hasUnsentOutput == true)
                    // An event-stream client sends nothing after its request: the end of its side
                    // is its leaving (`EventSource.close()` closes the connection). Its slot is
                    // free now, not at the second heartbeat that finds it gone (issue 35: ~30 s);
                    // the stream ends cleanly, for a client that half-closed and still reads. The
                    // stream first: the subscription lets go of the session when it ends.
                    case .clientEnded:
                        session?.endStream()
                        subscription.cancel()
                    }
                })
        else {
            // The client has gone (nothing is delivered), or this caller cannot take a stream.
            subscription.cancel()
            let problem = ProblemDetails(
                status: 501, title: "Not Implemented", detail: "This connection cannot carry an event stream.")
            return view.displayProblem(ResponseViewModel(problem: problem))
        }
        session.display = display
        session.memo = subscription.loopShared { FeedEventMemo() }
        guard display.displayRetry(milliseconds: Self.retryMilliseconds) == .more else { return subscription.cancel() }
        subscription.start()
    }

    /// The head of `GET /todos/events` for `HEAD`: no subscription.
    public func presentHead(view: some FeedStreamDisplay) {
        _ = view.displayStream(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store"], events: { _ in })
    }
}

/// The view as the presenter opens it.
public protocol FeedStreamDisplay {
    /// Opens the event stream: 200 with `headers`; nil when the client has gone.
    func displayStream(headers: HTTPHeaders, events: @escaping (HTTPStreamEvent) -> Void) -> (any FeedDisplay)?
    func displayProblem(_ model: ResponseViewModel<ProblemDetails>)
}

/// One subscriber: the interactor's items as view models, to the open display.
final class FeedSession: FeedSubscriber, FeedEnding {
    let baseURL: String
    var display: (any FeedDisplay)?
    /// Events already shaped on this loop (nil: each is shaped for this subscriber alone), and
    /// where in it this session found its last one.
    var memo: FeedEventMemo?
    private var memoHint = -1

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    func receive(_ item: FeedItem) -> FeedDelivery {
        guard let display else { return .closed }
        let delivery: FeedDelivery
        if let memo {
            let event = memo.event(for: item, baseURL: baseURL, hint: &memoHint) {
                display.encodeEvent(Self.viewModel(item, baseURL: baseURL))
            }
            delivery = display.displayEncodedEvent(event)
        } else {
            delivery = display.displayEvent(Self.viewModel(item, baseURL: baseURL))
        }
        if delivery == .closed || delivery == .cutOff { self.display = nil }
        return delivery
    }

    /// A run goes out as one block of events, encoded once on the loop for every subscriber that
    /// is sent the same run (subscribers that keep up are).
    func receive(run: FeedRun) -> FeedRunDelivery {
        guard let display else { return FeedRunDelivery(taken: 0, delivery: .closed) }
        guard let memo else { return receiveEach(of: run) }
        let block = memo.block(for: run, baseURL: baseURL) {
            var bytes: [UInt8] = []
            for item in run.items {
                bytes +=
                    memo.event(for: item, baseURL: baseURL, hint: &memoHint) {
                        display.encodeEvent(Self.viewModel(item, baseURL: baseURL))
                    }.bytes
            }
            return FeedEncodedEvent(bytes: bytes)
        }
        let delivery = display.displayEncodedEvent(block)
        if delivery == .closed || delivery == .cutOff { self.display = nil }
        return FeedRunDelivery(taken: delivery == .closed ? 0 : run.items.count, delivery: delivery)
    }

    func flush() {
        display?.displayFlush()
    }

    func heartbeat() -> FeedDelivery {
        guard let display else { return .closed }
        return display.displayComment("keep-alive")
    }

    func endStream() {
        display?.displayEnd()
        display = nil
    }

    static func viewModel(_ item: FeedItem, baseURL: String) -> FeedEventViewModel {
        var writer = JSONWriter(capacity: 512)
        switch item {
        case .resync(let position), .expired(let position):
            writer.beginObject()
            writer.endObject()
            let event = if case .resync = item { "resync" } else { "expired" }
            return FeedEventViewModel(id: position, event: event, data: writer.finish())
        case .change(let position, let change):
            let event: String
            switch change {
            case .created(let data), .updated(let data):
                event = if case .created = change { "created" } else { "updated" }
                writer.beginObject()
                writer.key("todo")
                TodoViewModel(data, baseURL: baseURL).write(to: &writer)
                writer.key("etag")
                writer.string(data.entityTag.description)
                writer.endObject()
            case .deleted(let id):
                event = "deleted"
                writer.beginObject()
                writer.key("id")
                writer.string(id)
                writer.endObject()
            case .cleared:
                event = "cleared"
                writer.beginObject()
                writer.endObject()
            }
            return FeedEventViewModel(id: position, event: event, data: writer.finish())
        }
    }
}

/// The events of one loop's recent changes, shaped and encoded once for every subscriber on the
/// loop that is sent them. Subscribers on a loop are sent the same changes in the same order, so
/// the memo is a ring of the newest events and each session remembers where it found its last
/// one: the next is found by one comparison, not a hash of the position. Used on its loop's
/// thread only.
final class FeedEventMemo {
    /// Events kept.
    static let capacity = 1024

    private struct Entry {
        let position: String
        let baseURL: String
        let event: FeedEncodedEvent
    }

    private var ring: [Entry] = []
    /// Where the next entry goes once the ring is full.
    private var next = 0
    /// Runs encoded as one block each, the newest few (a run lives for one pass of the loop's
    /// fan-out; subscribers that lag read runs of their own).
    private var blocks: [(run: FeedRun, baseURL: String, block: FeedEncodedEvent)] = []
    private var nextBlock = 0
    static let blockCapacity = 4

    /// `run` for `baseURL` as one block: from the memo when a subscriber on this loop was sent it,
    /// else `encode`d and kept.
    func block(for run: FeedRun, baseURL: String, encode: () -> FeedEncodedEvent) -> FeedEncodedEvent {
        for entry in blocks where entry.run === run && entry.baseURL == baseURL { return entry.block }
        let block = encode()
        if blocks.count < Self.blockCapacity {
            blocks.append((run, baseURL, block))
        } else {
            blocks[nextBlock] = (run, baseURL, block)
            nextBlock = (nextBlock + 1) % Self.blockCapacity
        }
        return block
    }

    /// `item` for `baseURL`: from the memo when a subscriber on this loop was sent it (looked for
    /// after `hint`, where this subscriber found its previous one); else `encode`d and kept.
    /// Only changes are kept (a resync is one subscriber's).
    func event(
        for item: FeedItem, baseURL: String, hint: inout Int, encode: () -> FeedEncodedEvent
    ) -> FeedEncodedEvent {
        guard case .change(let position, _) = item else { return encode() }
        // The entries after the hint, a few of them: subscribers with other base URLs interleave.
        for step in 0..<min(ring.count, 8) {
            let index = (hint + 1 + step) % ring.count
            if ring[index].position == position, ring[index].baseURL == baseURL {
                hint = index
                return ring[index].event
            }
        }
        let event = encode()
        let entry = Entry(position: position, baseURL: baseURL, event: event)
        if ring.count < Self.capacity {
            ring.append(entry)
            hint = ring.count - 1
        } else {
            ring[next] = entry
            hint = next
            next = (next + 1) % Self.capacity
        }
        return event
    }
}
