/// A minimum rate for request bodies (as Kestrel's `MinRequestBodyDataRate`): a body that trickles
/// in — a byte every few seconds, each one resetting the connection's time-out — would hold the
/// connection for ever. Once `gracePeriod` has passed since its head arrived, a body must have
/// averaged at least `bytesPerSecond` since then, or it is refused with 408 and the connection
/// closes, lingering, as after any refusal. The time-out sweep checks it (`timeoutsChecked`).
extension ConnectionMachine {
    /// The least a request body must average once its grace period is over.
    struct BodyRate: Sendable, Equatable {
        var bytesPerSecond: Int
        /// From the head: the body's first bytes may be slow (TCP's slow start, a client that
        /// prepares its body).
        var gracePeriod: Duration

        /// The status a body too slow is refused with, and what the client is told.
        static let refusalStatus = 408
        var refusalDetail: String {
            let grace = gracePeriod.seconds
            return "The request body arrived slower than \(bytesPerSecond) bytes per second on average, "
                + "\(grace == grace.rounded() ? String(Int(grace)) : String(grace)) s after its head: the connection is closed."
        }
    }

    /// The head of a request arrived at `now` and its body is to come: the body's rate counts
    /// from here.
    mutating func bodyBegan(now: Instant) {
        guard bodyRate != nil else { return }
        bodyStarted = now
        bodyBytes = 0
    }

    /// `count` bytes of the body being read arrived.
    mutating func bodyBytesArrived(count: Int) {
        guard bodyStarted != nil else { return }
        bodyBytes += count
    }

    /// Whether the body is too slow at `now`: past its grace period it has averaged less than the
    /// rate. A body whose connection is not read (the client does not take its answers) is not
    /// its client's delay to count: its clock starts again.
    mutating func bodyTooSlow(now: Instant) -> Bool {
        guard let rate = bodyRate, let started = bodyStarted, !isHandling else { return false }
        guard reading else {
            bodyStarted = now
            bodyBytes = 0
            return false
        }
        let elapsed = now - started
        return elapsed >= rate.gracePeriod && Double(bodyBytes) < Double(rate.bytesPerSecond) * elapsed.seconds
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
