/// How much one connection may hold: requests received and not answered yet (pipelined), and
/// answer bytes the client has not taken yet. Reading from the connection stops while either is at
/// its limit, or once its stream is refused; it resumes when the client catches up.
struct ConnectionBudget: Sendable, Equatable {
    /// Complete requests received and not answered before reading stops.
    var maxPipelinedRequests: Int
    /// Unsent answer bytes above which reading stops.
    var maxOutputBytes: Int

    /// Request heads accepted by the framing.
    private(set) var heads = 0
    /// Requests received completely (head and body).
    private(set) var received = 0
    /// Requests answered (their answer written to the socket).
    private(set) var answered = 0
    /// Unsent answer bytes, as last seen.
    var outputBytes = 0
    /// The stream was refused (or is discarded): nothing more is read.
    var finished = false

    init(maxPipelinedRequests: Int, maxOutputBytes: Int) {
        self.maxPipelinedRequests = maxPipelinedRequests
        self.maxOutputBytes = maxOutputBytes
    }

    mutating func record(_ events: FramingEvents) {
        heads += events.headsCompleted
        received += events.messagesCompleted
    }

    mutating func recordAnswer() {
        answered += 1
    }

    /// Complete requests waiting for their answer.
    var pipelined: Int { received - answered }

    /// A request whose head has arrived is not answered yet: a graceful stop waits for it.
    var awaitsAnswer: Bool { heads > answered && !finished }

    /// Whether the connection may read more bytes now.
    var allowsReading: Bool {
        !finished && pipelined < maxPipelinedRequests && outputBytes <= maxOutputBytes
    }
}
