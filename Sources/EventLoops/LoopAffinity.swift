import Glibc
import Synchronization

/// The rule "only its loop touches this", checked, for state that a loop reaches by a number
/// rather than through its `EventLoop` (a loop's request metrics, `RequestMetrics`): nothing else
/// ties such state to a loop, so a caller that passes the wrong number, or calls from another thread
/// (a test's in-process client did, while a store's answer came on the loop), races without a lock
/// and only a sanitizer run would tell. The first caller claims the state; every later one must be
/// the same loop. A thread that runs no loop (a fuzzer, a unit test without a server) claims it
/// as itself, and must then be the only thread that touches it.
///
/// Cheap enough to assert on every touch in debug builds: a thread-specific read and an atomic load.
public final class LoopAffinity: Sendable {
    /// The claimant's identity (`caller`); 0 while unclaimed.
    private let owner = Atomic<UInt>(0)

    public init() {}

    /// Whether the calling thread may touch the state: it runs the loop that claimed it, or is
    /// the thread that did (off the loops), or claims it now.
    public func allowsCaller() -> Bool {
        let caller = Self.caller
        let claimed = owner.load(ordering: .relaxed)
        if claimed != 0 { return claimed == caller }
        let (exchanged, original) = owner.compareExchange(expected: 0, desired: caller, ordering: .relaxed)
        return exchanged || original == caller
    }

    /// Who is calling: the identity of its loop (an `event_base` address, even), or on a thread
    /// that runs none the thread's own handle made odd, so that the two never meet.
    static var caller: UInt {
        if let loop = EventLoop.current { return loop.identity }
        return UInt(pthread_self()) | 1
    }
}
