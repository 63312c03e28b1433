/// A minimum rate for request bodies (as Kestrel's `MinRequestBodyDataRate`): a body that trickles
/// in — a byte every few seconds, each one resetting the connection's time-out — would hold the
/// connection for ever. Once `gracePeriod` has passed since its head arrived, a body must have
/// averaged at least `bytesPerSecond` since then, or it is refused with 408 and the connection
/// closes, lingering, as after any refusal. The time-out sweep checks it (`slowBodies`).
extension ConnectionStateMachine {
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

    /// The head of a request arrived on `connection` at `now` and its body is to come: the body's
    /// rate counts from here.
    mutating func bodyBegan(_ connection: ConnectionID, now: Instant) {
        guard bodyRate != nil, let index = connections.index(forKey: connection) else { return }
        connections.values[index].bodyStarted = now
        connections.values[index].bodyBytes = 0
    }

    /// `count` bytes of the body being read arrived on `connection`.
    mutating func bodyBytesArrived(_ connection: ConnectionID, count: Int) {
        guard let index = connections.index(forKey: connection), connections.values[index].bodyStarted != nil else { return }
        connections.values[index].bodyBytes += count
    }

    /// The connections whose body is too slow at `now`: past its grace period it has averaged less
    /// than the rate. Each is refused here — nothing more is read or framed, it closes once the
    /// refusal is written and lingers — and the loop writes the 408 (`BodyRate.refusalDetail` says what
    /// to tell the client). A body whose connection is not read (the client does not take its answers) is
    /// not its client's delay to count: its clock starts again.
    mutating func slowBodies(now: Instant) -> [ConnectionID] {
        guard let rate = bodyRate else { return [] }
        var slow: [ConnectionID] = []
        for index in connections.values.indices {
            guard let started = connections.values[index].bodyStarted, !connections.values[index].handling else { continue }
            guard connections.values[index].reading else {
                connections.values[index].bodyStarted = now
                connections.values[index].bodyBytes = 0
                continue
            }
            let elapsed = now - started
            guard elapsed >= rate.gracePeriod,
                Double(connections.values[index].bodyBytes) < Double(rate.bytesPerSecond) * elapsed.seconds
            else { continue }
            slow.append(connections.keys[index])
        }
        for id in slow { _ = streamFinished(id, refused: true) }
        return slow
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
