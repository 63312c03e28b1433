import LockTracing
import Synchronization

/// Whether the database answered lately, for `/healthz`: refused from a failure that says it is
/// unavailable until a statement succeeds; while refused, at most one probe per `probeInterval`.
/// A success while nothing is refused costs one relaxed atomic load (no lock shared by the loops).
final class PostgresStoreHealth: Sendable {
    private struct State {
        var refusal: String?
        var lastProbe: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let refused = Atomic<Bool>(false)
    let probeInterval: Duration

    init(probeInterval: Duration = .seconds(1)) {
        self.probeInterval = probeInterval
    }

    var refusal: String? {
        guard refused.load(ordering: .acquiring) else { return nil }
        return state.withTracedLock { $0.refusal }
    }

    func failed(_ reason: String) {
        state.withTracedLock { state in
            state.refusal = reason
            refused.store(true, ordering: .releasing)
        }
    }

    func succeeded() {
        guard refused.load(ordering: .relaxed) else { return }
        state.withTracedLock { state in
            state.refusal = nil
            refused.store(false, ordering: .releasing)
        }
    }

    /// Whether to send a probe now (and remember that one went).
    func shouldProbe(now: ContinuousClock.Instant) -> Bool {
        state.withTracedLock { state in
            if let last = state.lastProbe, now - last < probeInterval { return false }
            state.lastProbe = now
            return true
        }
    }
}
