import HTTPValues

/// The request a connection is at, from its head to its answer's end, held by the connection's
/// machine: one case at a time, so that a body is never read while the handler has a request, an
/// answer is never sent twice, and a streamed answer is the only one in progress.
extension ConnectionMachine {
    enum Exchange {
        /// No request is held: what is read is framed (a head may be arriving).
        case idle
        /// `head` arrived and its body is still arriving: `body` so far, copied out as it is framed,
        /// so that the input holds no more than one read however the body is framed (a million
        /// one-byte chunks included).
        case receiving(head: HTTPRequest, body: [UInt8])
        /// The handler has `request` and has not answered it (`isHead`: its answer has no body).
        case handling(ConnectionStateMachine.RequestID, isHead: Bool)
        /// The request's answer is being streamed and is not finished: what the shell needs to
        /// write it, and its framing and back-pressure (`ConnectionMachine+Streams`), which exist
        /// only while it streams.
        case streaming(StreamState, StreamFlow)

        /// Whether a head arrived and its body is arriving (read without copying the head out:
        /// a copy of a request is a dozen retains and as many releases).
        var isReceiving: Bool {
            if case .receiving = self { return true }
            return false
        }

        /// The head whose body is arriving (a copy: for the rare paths).
        var head: HTTPRequest? {
            if case .receiving(let head, _) = self { return head }
            return nil
        }

        /// The exchange as it was, left `idle`: moved out, not copied.
        mutating func take() -> Exchange {
            var taken = Exchange.idle
            swap(&self, &taken)
            return taken
        }
    }

    /// A head arrived and its body is still to come (or is whole already: the shell takes it at once).
    mutating func receiving(_ head: HTTPRequest) {
        exchange = .receiving(head: head, body: [])
    }

    /// Appends to the body that is arriving, in place (the case is moved out meanwhile, so
    /// neither the head nor the array is copied). An access to the machine's value, not a decision.
    mutating func appendToBody(_ append: (inout [UInt8]) -> Void) {
        guard exchange.isReceiving, case .receiving(let head, var body) = exchange.take() else { return }
        append(&body)
        exchange = .receiving(head: head, body: body)
    }

    /// The request whose message is whole, its body in place; the exchange is left `idle` until
    /// the handler gets it (`requestStarted`). Nil when no body was arriving.
    mutating func takeReceived() -> HTTPRequest? {
        guard exchange.isReceiving, case .receiving(var request, let body) = exchange.take() else { return nil }
        request.body = body
        return request
    }
}
