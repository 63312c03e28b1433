/// Reading follows the connection's budget: requests received and not answered, unsent answer
/// bytes, and whether its stream is over.
extension ConnectionMachine {
    /// The framing accepted request heads or completed requests.
    mutating func framed(_ events: FramingEvents) -> Action {
        updateReading { $0.budget.record(events) }
    }

    /// `bytes` of answers wait to be sent (told after every write and every queued answer): only
    /// past the output bound, or while reading is stopped, can reading change, so the budget is
    /// looked at only then (the hot path stays a comparison).
    mutating func outputQueued(bytes: Int) -> Action {
        guard bytes > budget.maxOutputBytes || !reading else { return .nothing }
        return outputPending(bytes: bytes)
    }

    /// `bytes` of answers wait to be sent.
    mutating func outputPending(bytes: Int) -> Action {
        updateReading { $0.budget.outputBytes = bytes }
    }

    /// The stream ends here: refused (answered with a refusal — the framing's, or the handler's
    /// from a head whose body was never read — lingering at close) or discarded. Nothing more is
    /// read or framed; the connection closes once what is queued is written.
    mutating func streamFinished(refused: Bool) -> Action {
        updateReading {
            $0.budget.finished = true
            $0.closing = .onceWritten
            $0.bodyStarted = nil
            if refused { $0.refused = true }
        }
    }

    /// How a refusal is framed: `Connection: close`, and nothing after it.
    struct Refusal: Sendable, Equatable {
        var reading: Action
        var framing: AnswerFraming
    }

    /// The stream is refused (the framing's refusal, the handler's answer from a head whose body
    /// is never read, a body too slow): it ends there (`streamFinished`), lingering at close, a
    /// body that was arriving is dropped, and the refusal is framed to close the connection,
    /// whatever the client asked.
    mutating func streamRefused() -> Refusal {
        if exchange.isReceiving { exchange = .idle }
        return Refusal(reading: streamFinished(refused: true), framing: AnswerFraming(closes: true, http10KeepAlive: false))
    }

    /// Whether a request whose head arrived is not answered and written yet (a drain waits for it).
    var awaitsAnswer: Bool { budget.awaitsAnswer }

    /// Applies `change` and says whether reading flips (`stopReading`, `resumeReading`).
    mutating func updateReading(_ change: (inout ConnectionMachine) -> Void) -> Action {
        change(&self)
        let allow = budget.allowsReading
        guard allow != reading else { return .nothing }
        reading = allow
        return allow ? .resumeReading : .stopReading
    }
}
