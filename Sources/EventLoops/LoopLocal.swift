import LockTracing
import Synchronization

/// One object per event loop, made on that loop's thread the first time it is asked for there, and
/// used only on that thread afterwards (a loop's PostgreSQL pool, its batch of inserts): one lock
/// for the lookup, none for the object's use.
public final class LoopLocal<Value: AnyObject>: Sendable {
    private let values = Mutex<[UInt: LoopBound<Value>]>([:])

    public init() {}

    /// `loop`'s value; `make` makes it on first use (call on `loop`'s thread, asserted in debug
    /// builds: the value is the loop's, without a lock).
    public func value(on loop: EventLoop, make: (EventLoop) -> Value) -> Value {
        assert(loop.isCurrent, "a loop's own value asked for off that loop's thread")
        if let bound = values.withTracedLock({ $0[loop.identity] }) { return bound.valueOnLoop }
        let bound = LoopBound(make(loop), on: loop)
        values.withTracedLock { $0[loop.identity] = bound }
        return bound.valueOnLoop
    }

    /// Every loop's value, forgotten here (each is reached through `withValue` on its loop).
    public func removeAll() -> [LoopBound<Value>] {
        values.withTracedLock { values in
            defer { values = [:] }
            return Array(values.values)
        }
    }
}
