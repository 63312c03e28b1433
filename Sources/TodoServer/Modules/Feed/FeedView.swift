import ChangeFeed
import HTTPValues

/// The feed's HTTP adapter: reads where the client wants to resume (`Last-Event-ID`, which
/// `EventSource` sends on every reconnect, over `lastEventId=` of the URL it was opened with) and
/// writes the presenter's events in the `text/event-stream` format.
public struct FeedView: Sendable {
    private let presenter: FeedPresenter
    private let serializer: JSONSerializer
    /// Unsent bytes of a stream at which its subscriber is cut off; half of it pauses the
    /// subscriber until a quarter is left (`backPressure(maxBufferedBytes:)`).
    private let maxBufferedBytes: Int

    public init(presenter: FeedPresenter, serializer: JSONSerializer, maxBufferedBytes: Int) {
        self.presenter = presenter
        self.serializer = serializer
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// `GET /todos/events` (and `HEAD`, which gets the head only).
    public func handleSubscription(
        _ request: HTTPRequest, context: RequestContext, openStream: @escaping StreamOpener, respond: @escaping Respond
    ) {
        let adapter = FeedStreamOpening(
            openStream: openStream, respond: respond, serializer: serializer, maxBufferedBytes: maxBufferedBytes)
        if request.method == .head { return presenter.presentHead(view: adapter) }
        presenter.presentSubscription(Self.decode(request, context: context), context: context, view: adapter)
    }

    /// The marks the feed's streams are opened with: the connection pauses the subscriber once
    /// half the bound is unsent (flushing a batch that reaches it first), tells it `.drained` once
    /// a quarter is left, and cuts it off at the bound.
    static func backPressure(maxBufferedBytes: Int) -> HTTPStreamBackPressure {
        HTTPStreamBackPressure(pauseAt: maxBufferedBytes / 2, resumeAt: maxBufferedBytes / 4, cutOffAt: maxBufferedBytes)
    }

    /// The position to resume after: the header first (it is newer than the URL's), empty as none.
    static func decode(_ request: HTTPRequest, context: RequestContext) -> FeedRequest {
        let accepts = request.headers["Accept"]?.contains("text/event-stream") == true
        let header = request.headers["Last-Event-ID"].map { String($0.trimmingWhitespace()) }
        if let header, !header.isEmpty { return FeedRequest(lastEventID: header, acceptsEventStream: accepts) }
        if let query = context.query["lastEventId"], !query.isEmpty {
            return FeedRequest(lastEventID: query, acceptsEventStream: accepts)
        }
        return FeedRequest(acceptsEventStream: accepts)
    }
}

/// Opens the stream for the presenter, or answers its problem.
private struct FeedStreamOpening: FeedStreamDisplay {
    let openStream: StreamOpener
    let respond: Respond
    let serializer: JSONSerializer
    let maxBufferedBytes: Int

    func displayStream(headers: HTTPHeaders, events: @escaping (HTTPStreamEvent) -> Void) -> (any FeedDisplay)? {
        guard let stream = openStream(200, headers, FeedView.backPressure(maxBufferedBytes: maxBufferedBytes), events) else {
            return nil
        }
        return EventStreamWriter(stream: stream)
    }

    func displayProblem(_ model: ResponseViewModel<ProblemDetails>) {
        respond(serializer.display(model))
    }
}

/// Writes events, comments and the retry hint in the `text/event-stream` format (WHATWG HTML
/// §9.2.6) and says what the stream's back-pressure answered (the connection keeps it, with the
/// marks the view opened the stream with).
final class EventStreamWriter: FeedDisplay {
    private let stream: any ResponseStreamWriter
    private(set) var hasUnsentOutput = false

    init(stream: any ResponseStreamWriter) {
        self.stream = stream
    }

    func displayEvent(_ model: FeedEventViewModel) -> FeedDelivery {
        displayEncodedEvent(encodeEvent(model))
    }

    func encodeEvent(_ model: FeedEventViewModel) -> FeedEncodedEvent {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(model.id.utf8.count + model.event.utf8.count + model.data.count + 24)
        bytes += "id: ".utf8
        Self.appendSingleLine(model.id, to: &bytes)
        bytes += "\nevent: ".utf8
        Self.appendSingleLine(model.event, to: &bytes)
        bytes += "\ndata: ".utf8
        bytes += model.data
        bytes += "\n\n".utf8
        return FeedEncodedEvent(bytes: bytes)
    }

    func displayEncodedEvent(_ event: FeedEncodedEvent) -> FeedDelivery {
        write(event.bytes, queued: true)
    }

    func displayFlush() {
        stream.flush()
        hasUnsentOutput = stream.pendingBytes > 0
    }

    func displayComment(_ text: String) -> FeedDelivery {
        write(Array(": ".utf8) + Self.singleLine(text) + Array("\n\n".utf8), queued: false)
    }

    func displayRetry(milliseconds: Int) -> FeedDelivery {
        write(Array("retry: \(milliseconds)\n\n".utf8), queued: false)
    }

    func displayEnd() {
        stream.finish()
    }

    func displayCutOff() {
        stream.abort()
    }

    /// Writes (or queues), then says what the stream answered: more; paused until `.drained`;
    /// cut off (the connection closed it); closed.
    private func write(_ bytes: [UInt8], queued: Bool) -> FeedDelivery {
        let written = queued ? stream.queue(bytes) : stream.write(bytes)
        switch written {
        case .accepted:
            hasUnsentOutput = stream.pendingBytes > 0
            return .more
        case .overBound:
            hasUnsentOutput = true
            return .paused
        case .cutOff:
            hasUnsentOutput = true
            return .cutOff
        case .closed:
            return .closed
        }
    }

    /// A field value cannot hold a line break (it would end the field): dropped.
    private static func singleLine(_ text: String) -> [UInt8] {
        text.utf8.filter { $0 != 10 && $0 != 13 }
    }

    private static func appendSingleLine(_ text: String, to bytes: inout [UInt8]) {
        if text.utf8.contains(where: { $0 == 10 || $0 == 13 }) {
            bytes += singleLine(text)
        } else {
            bytes += text.utf8
        }
    }
}
